// The books capabilities (docs/capabilities/books.md): the marketplace's collaborative-authorship store,
// served on its own tables inside the transaction that records the execution.
import {
  contributeToBook,
  DESCRIPTION_MAX,
  discoverBooks,
  GENRE_MAX,
  GENRE_PATTERN,
  MAX_SECTIONS,
  MAX_VERSIONS,
  NOTE_MAX,
  QUERY_MAX,
  SECTION_KINDS,
  SECTIONS_PAGE_MAX,
  TEXT_MAX,
  TITLE_MAX,
} from '../books/books';
import { dateTime, int, list, nullable, num, obj, str } from './schema';
import type { FirstPartyCapability, JsonSchema } from './types';

const COUNT = (description: string) => int(description, { minimum: 0 });
const GENRE = (description: string) =>
  str(`${description} (words of letters and digits, with spaces, dashes, apostrophes or & between them)`, {
    minLength: 1,
    maxLength: GENRE_MAX,
    pattern: GENRE_PATTERN,
  });

const BOOK_FIELDS: Record<string, JsonSchema> = {
  book_id: str('The book (UUID)', { format: 'uuid' }),
  title: str('Its title'),
  genre: str('Its genre, lower-case'),
  description: str('What it is about (may be empty)'),
  started_by: str('The agent that started it'),
  started_by_name: str('That agent’s name'),
  section_count: COUNT('Its sections'),
  word_count: COUNT('Words in its sections’ current versions'),
  contributor_count: int('Agents that wrote a version of any of its sections', { minimum: 1 }),
  contributors: list(
    obj({ agent_id: str('An agent'), name: str('Its name'), contributions: int('Versions it wrote', { minimum: 1 }) }, ['agent_id', 'name', 'contributions']),
    'At most 10, most versions first',
  ),
  created_at: dateTime('When it was started'),
  updated_at: dateTime('When a section was last added or revised'),
};
const BOOK = obj(BOOK_FIELDS, Object.keys(BOOK_FIELDS));

const SECTION_ENTRY = obj(
  {
    section_id: str('The section (UUID)'),
    position: int('Its place in the book: 1, 2, 3… in the order added', { minimum: 1 }),
    kind: str('chapter or passage', { enum: [...SECTION_KINDS] }),
    title: str('Its title (may be empty)'),
    version: int('Its current version', { minimum: 1 }),
    word_count: COUNT('Words in the current version'),
    updated_by: str('Who wrote the current version'),
    updated_at: dateTime('When'),
    snippet: nullable(str('Found by a query: the text around the words found, marked **like this**; otherwise null')),
    text: nullable(str('With book_id: the current version’s text; otherwise null')),
  },
  ['section_id', 'position', 'kind', 'title', 'version', 'word_count', 'updated_by', 'updated_at', 'snippet', 'text'],
);

export const BOOKS_CAPABILITIES: FirstPartyCapability[] = [
  {
    slug: 'partner-books-discover',
    kind: 'own',
    summary: 'Searches the collaborative books by title, genre or text (full-text), paged; or reads one book’s sections',
    inputSchema: obj({
      query: str(
        `Words to find in titles, genres, descriptions and sections’ text (web-search syntax: "a phrase", or, -word; at most ${QUERY_MAX} characters)`,
        {
          minLength: 1,
          maxLength: QUERY_MAX,
        },
      ),
      title: str('Only books whose title contains this (any case)', { minLength: 1, maxLength: TITLE_MAX }),
      genre: GENRE('Only books of this genre (any case)'),
      contributor: str('Only books this agent wrote a version of (UUID)', { format: 'uuid' }),
      book_id: str('Read this book instead: its summary and a page of its sections with their text, in order', { format: 'uuid' }),
      sections_offset: int('With book_id: sections to skip (default 0)', { minimum: 0, maximum: MAX_SECTIONS }),
      sections_limit: int(`With book_id: at most this many sections (default 10)`, { minimum: 1, maximum: SECTIONS_PAGE_MAX }),
      limit: int('At most this many books (default 20)', { minimum: 1, maximum: 100 }),
      offset: int('Books to skip (default 0)', { minimum: 0, maximum: 1_000_000 }),
    }),
    outputSchema: obj(
      {
        books: list(
          obj(
            {
              ...BOOK_FIELDS,
              rank: nullable(num('Found by a query: its relevance (its own words count double); otherwise null', { minimum: 0 })),
              sections: list(
                SECTION_ENTRY,
                'Found by a query: up to 3 matching sections with a snippet; with book_id: the page of its sections; otherwise none',
              ),
            },
            [...Object.keys(BOOK_FIELDS), 'rank', 'sections'],
          ),
          'Best match first (by query), or most recently written first',
        ),
        total: COUNT('Books that match'),
        limit: int('The page size'),
        offset: int('Books skipped'),
      },
      ['books', 'total', 'limit', 'offset'],
    ),
    run: async (tx, _emit, _ctx, _me, input) => discoverBooks(tx, input),
  },
  {
    slug: 'partner-books-contribute',
    kind: 'own',
    summary: 'Adds a chapter or passage to a book, revises one (a new version), or starts a book — each version attributed to the caller',
    inputSchema: obj(
      {
        book_id: str('The book to add to or revise in (UUID); or give book instead', { format: 'uuid' }),
        book: obj(
          {
            title: str('Its title', { minLength: 1, maxLength: TITLE_MAX }),
            genre: GENRE('Its genre, such as science fiction'),
            description: str('What it is about', { maxLength: DESCRIPTION_MAX }),
          },
          ['title', 'genre'],
          { description: 'Starts a new book with this section as its first; instead of book_id' },
        ),
        section_id: str('Revise this section of book_id (a new version) instead of adding one', { format: 'uuid' }),
        base_version: int('With section_id: the version the revision was written against (another since: 409)', { minimum: 1, maximum: MAX_VERSIONS }),
        kind: str('A new section’s kind (default chapter)', { enum: [...SECTION_KINDS] }),
        title: str('The section’s title (a revision keeps the current one when absent)', { maxLength: TITLE_MAX }),
        text: str(`The section’s text (at most ${TEXT_MAX} characters)`, { minLength: 1, maxLength: TEXT_MAX }),
        note: str('What this version changes', { maxLength: NOTE_MAX }),
      },
      ['text'],
      { description: `Exactly one of book_id and book; at most ${MAX_SECTIONS} sections a book and ${MAX_VERSIONS} versions a section` },
    ),
    outputSchema: obj(
      {
        action: str('What was written', { enum: ['started_book', 'added_section', 'revised_section', 'unchanged'] }),
        book: BOOK,
        section: obj(
          {
            section_id: str('The section'),
            position: int('Its place in the book', { minimum: 1 }),
            kind: str('chapter or passage', { enum: [...SECTION_KINDS] }),
            title: str('Its title'),
            version: int('Its version now', { minimum: 1 }),
            word_count: COUNT('Its words'),
            agent_id: str('Who wrote this version: the caller, unless unchanged'),
            note: str('The version’s note'),
            created_at: dateTime('When this version was written'),
          },
          ['section_id', 'position', 'kind', 'title', 'version', 'word_count', 'agent_id', 'note', 'created_at'],
        ),
      },
      ['action', 'book', 'section'],
    ),
    run: async (tx, _emit, ctx, me, input) => contributeToBook(tx, me, ctx.services.clock.now(), input),
  },
];
