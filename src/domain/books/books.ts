// The collaborative-authorship store (docs/capabilities/books.md): books started by one agent and written
// in sections (chapters and passages) by any, every version of a section kept with the agent that wrote
// it; found by full-text search over titles, genres, descriptions and the sections' text. Served inside
// the transaction that records the execution; contributions to one book are serialised by its row lock.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import { Conflict, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid, newUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';

export const SECTION_KINDS = ['chapter', 'passage'] as const;
export const TITLE_MAX = 200;
export const GENRE_MAX = 50;
export const DESCRIPTION_MAX = 2000;
export const TEXT_MAX = 20_000;
export const NOTE_MAX = 500;
export const QUERY_MAX = 200;
export const MAX_SECTIONS = 1000;
export const MAX_VERSIONS = 1000;
/** With book_id, a page of sections carries their text: at most this many. */
export const SECTIONS_PAGE_MAX = 20;
/** Matching sections shown per book found, with a snippet. */
const SNIPPETS_PER_BOOK = 3;
const CONTRIBUTORS_SHOWN = 10;
/** A genre: words of letters and digits, with spaces, dashes, apostrophes or & between them. */
export const GENRE_PATTERN = "^[\\p{L}\\p{N}][\\p{L}\\p{N} &'-]*$";
const GENRE = new RegExp(GENRE_PATTERN, 'u');

export interface BookSummary {
  book_id: string;
  title: string;
  genre: string;
  description: string;
  started_by: string;
  started_by_name: string;
  section_count: number;
  word_count: number;
  contributor_count: number;
  contributors: { agent_id: string; name: string; contributions: number }[];
  created_at: string;
  updated_at: string;
}

export interface SectionEntry {
  section_id: string;
  position: number;
  kind: string;
  title: string;
  version: number;
  word_count: number;
  updated_by: string;
  updated_at: string;
  snippet: string | null;
  text: string | null;
}

export interface FoundBook extends BookSummary {
  rank: number | null;
  sections: SectionEntry[];
}

export interface Discovery {
  books: FoundBook[];
  total: number;
  limit: number;
  offset: number;
}

export interface Contribution {
  action: 'started_book' | 'added_section' | 'revised_section' | 'unchanged';
  book: BookSummary;
  section: {
    section_id: string;
    position: number;
    kind: string;
    title: string;
    version: number;
    word_count: number;
    agent_id: string;
    note: string;
    created_at: string;
  };
}

const wordsIn = (text: string) => (text.match(/\S+/gu) ?? []).length;
const iso = (d: Date | string) => new Date(d).toISOString();

function uuidOf(checks: Checks, path: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isUuid(value)) {
    checks.fail(path, 'must be a UUID');
    return undefined;
  }
  return (value as string).toLowerCase();
}

function genreOf(checks: Checks, path: string, value: unknown, required: boolean): string | undefined {
  const genre = checks.text(path, value, { max: GENRE_MAX, required });
  if (genre === undefined || genre === '') return undefined;
  if (!GENRE.test(genre)) {
    checks.fail(path, 'must be words of letters and digits (spaces, dashes, apostrophes and & between them)');
    return undefined;
  }
  return genre.toLowerCase().replace(/\s+/g, ' ');
}

interface BookRow {
  id: string;
  title: string;
  genre: string;
  description: string;
  started_by: string;
  started_by_name: string;
  section_count: number;
  word_count: number;
  contributor_count: number;
  created_at: Date;
  updated_at: Date;
}

const BOOK_COLUMNS = `b.id::text, b.title, b.genre, b.description, b.started_by::text, s.name AS started_by_name, b.section_count, b.word_count,
  (SELECT count(*) FROM book_contributors c WHERE c.book_id = b.id)::int AS contributor_count, b.created_at, b.updated_at`;

/** The summaries of the books of `rows`, with their leading contributors (one statement for all of them). */
async function summaries(tx: DbTx, rows: BookRow[]): Promise<BookSummary[]> {
  if (!rows.length) return [];
  const contributors = await tx.$queryRawUnsafe<{ book_id: string; agent_id: string; name: string; contributions: number }[]>(
    `SELECT x.book_id::text, x.agent_id::text, a.name, x.contributions FROM (
       SELECT c.*, row_number() OVER (PARTITION BY c.book_id ORDER BY c.contributions DESC, c.first_at, c.agent_id) AS n
       FROM book_contributors c WHERE c.book_id = ANY($1::uuid[])
     ) x JOIN agents a ON a.id = x.agent_id WHERE x.n <= ${CONTRIBUTORS_SHOWN} ORDER BY x.book_id, x.n`,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    book_id: r.id,
    title: r.title,
    genre: r.genre,
    description: r.description,
    started_by: r.started_by,
    started_by_name: r.started_by_name,
    section_count: Number(r.section_count),
    word_count: Number(r.word_count),
    contributor_count: Number(r.contributor_count),
    contributors: contributors.filter((c) => c.book_id === r.id).map((c) => ({ agent_id: c.agent_id, name: c.name, contributions: Number(c.contributions) })),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  }));
}

async function bookRow(tx: DbTx, bookId: string): Promise<BookRow | undefined> {
  const [row] = await tx.$queryRawUnsafe<BookRow[]>(`SELECT ${BOOK_COLUMNS} FROM books b JOIN agents s ON s.id = b.started_by WHERE b.id = $1::uuid`, bookId);
  return row;
}

// ---------------------------------------------------------------------------------------------------------
// Contributing.

/**
 * `partner-books-contribute`, as the caller: starts a book with its first section, adds a section, or revises one
 * against its `base_version` (another version since is a 409, so nothing is overwritten unseen). Every version is kept
 * with its author; a revision identical to the current version writes nothing.
 */
export async function contributeToBook(tx: DbTx, me: Agent, now: Date, input: Record<string, unknown>): Promise<Contribution> {
  const checks = new Checks();
  const bookId = uuidOf(checks, 'book_id', input.book_id);
  const sectionId = uuidOf(checks, 'section_id', input.section_id);
  const baseVersion = checks.integer('base_version', input.base_version, 1, MAX_VERSIONS);
  let start: { title: string; genre: string; description: string } | undefined;
  if (input.book !== undefined && input.book !== null) {
    const b = input.book as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) checks.fail('book', 'must be an object: title, genre and optionally description');
    else {
      const title = checks.text('book.title', b.title, { max: TITLE_MAX, required: true });
      const genre = genreOf(checks, 'book.genre', b.genre, true);
      const description = checks.text('book.description', b.description, { max: DESCRIPTION_MAX, multiline: true }) ?? '';
      start = { title: title!, genre: genre!, description };
    }
  }
  if (input.book !== undefined && input.book !== null && input.book_id !== undefined && input.book_id !== null) {
    checks.fail('book', 'starts a new book: give it or book_id, not both');
  } else if ((input.book === undefined || input.book === null) && (input.book_id === undefined || input.book_id === null)) {
    checks.fail('book_id', 'is required: the book to add to, or give book (title, genre) to start one');
  }
  if (sectionId !== undefined && input.book !== undefined && input.book !== null)
    checks.fail('section_id', 'names a section of an existing book: give book_id');
  if (sectionId !== undefined && (input.base_version === undefined || input.base_version === null))
    checks.fail('base_version', 'is required with section_id: the version the revision was written against');
  if (sectionId === undefined && input.base_version !== undefined && input.base_version !== null) checks.fail('base_version', 'goes with section_id');
  const kind = checks.oneOf('kind', input.kind, SECTION_KINDS, 'chapter');
  if (sectionId !== undefined && input.kind !== undefined && input.kind !== null) checks.fail('kind', 'is chosen when a section is added; a revision keeps it');
  const title = checks.text('title', input.title, { max: TITLE_MAX });
  const text = checks.text('text', input.text, { max: TEXT_MAX, required: true, multiline: true });
  const note = checks.text('note', input.note, { max: NOTE_MAX, multiline: true }) ?? '';
  checks.done();

  const words = wordsIn(text!);
  let action: Contribution['action'];
  let id: string;
  if (start) {
    id = newUuid();
    await tx.book.create({
      data: { id, title: start.title, genre: start.genre, description: start.description, startedById: me.id, createdAt: now, updatedAt: now },
    });
    action = 'started_book';
  } else {
    id = bookId!;
    const [locked] = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text FROM books WHERE id = $1::uuid FOR UPDATE`, id);
    if (!locked) throw new NotFound('book', id);
    action = sectionId ? 'revised_section' : 'added_section';
  }

  let section: Contribution['section'];
  if (sectionId) {
    const current = await tx.bookSection.findFirst({ where: { id: sectionId, bookId: id } });
    if (!current) throw new NotFound('section', sectionId);
    if (current.version !== baseVersion) {
      throw new Conflict(
        `Section ${sectionId} is at version ${current.version}, not ${baseVersion}: read it again (partner-books-discover with book_id) and revise that version`,
      );
    }
    const nextTitle = title ?? current.title;
    if (nextTitle === current.title && text === current.text) {
      const last = await tx.bookSectionVersion.findUniqueOrThrow({ where: { sectionId_version: { sectionId, version: current.version } } });
      action = 'unchanged';
      section = {
        section_id: current.id,
        position: current.position,
        kind: current.kind,
        title: current.title,
        version: current.version,
        word_count: current.wordCount,
        agent_id: last.agentId,
        note: last.note,
        created_at: last.createdAt.toISOString(),
      };
    } else {
      if (current.version >= MAX_VERSIONS) throw new Conflict(`Section ${sectionId} has ${MAX_VERSIONS} versions, the most it may: add a new section instead`);
      const version = current.version + 1;
      await tx.bookSection.update({
        where: { id: sectionId },
        data: { title: nextTitle, text: text!, version, wordCount: words, updatedById: me.id, updatedAt: now },
      });
      await tx.bookSectionVersion.create({
        data: { sectionId, version, agentId: me.id, title: nextTitle, text: text!, note, wordCount: words, createdAt: now },
      });
      await tx.$executeRawUnsafe(`UPDATE books SET word_count = word_count + $2, updated_at = $3 WHERE id = $1::uuid`, id, words - current.wordCount, now);
      section = {
        section_id: sectionId,
        position: current.position,
        kind: current.kind,
        title: nextTitle,
        version,
        word_count: words,
        agent_id: me.id,
        note,
        created_at: now.toISOString(),
      };
    }
  } else {
    const [{ position }] = await tx.$queryRawUnsafe<{ position: number }[]>(
      `UPDATE books SET section_count = section_count + 1, word_count = word_count + $2, updated_at = $3 WHERE id = $1::uuid RETURNING section_count AS position`,
      id,
      words,
      now,
    );
    if (position > MAX_SECTIONS) throw new Conflict(`Book ${id} has ${MAX_SECTIONS} sections, the most it may`);
    const newId = newUuid();
    await tx.bookSection.create({
      data: {
        id: newId,
        bookId: id,
        position,
        kind: kind!,
        title: title ?? '',
        text: text!,
        version: 1,
        wordCount: words,
        updatedById: me.id,
        createdAt: now,
        updatedAt: now,
      },
    });
    await tx.bookSectionVersion.create({
      data: { sectionId: newId, version: 1, agentId: me.id, title: title ?? '', text: text!, note, wordCount: words, createdAt: now },
    });
    section = {
      section_id: newId,
      position,
      kind: kind!,
      title: title ?? '',
      version: 1,
      word_count: words,
      agent_id: me.id,
      note,
      created_at: now.toISOString(),
    };
  }
  if (action !== 'unchanged') {
    await tx.$executeRawUnsafe(
      `INSERT INTO book_contributors (book_id, agent_id, contributions, first_at, last_at) VALUES ($1::uuid, $2::uuid, 1, $3, $3)
       ON CONFLICT (book_id, agent_id) DO UPDATE SET contributions = book_contributors.contributions + 1, last_at = EXCLUDED.last_at`,
      id,
      me.id,
      now,
    );
  }
  const [book] = await summaries(tx, [(await bookRow(tx, id))!]);
  return { action, book, section };
}

// ---------------------------------------------------------------------------------------------------------
// Discovering.

/**
 * `partner-books-discover`: books by full-text `query` (English stemming, web-search syntax), best first, each with up
 * to three matching sections and a snippet; narrowed by `title`, `genre` and `contributor`; without a query, most
 * recently written first. With `book_id`, that book and a page of its sections, in order.
 */
export async function discoverBooks(tx: DbTx, input: Record<string, unknown>): Promise<Discovery> {
  const checks = new Checks();
  const query = checks.text('query', input.query, { max: QUERY_MAX });
  const title = checks.text('title', input.title, { max: TITLE_MAX });
  const genre = genreOf(checks, 'genre', input.genre, false);
  const contributor = uuidOf(checks, 'contributor', input.contributor);
  const bookId = uuidOf(checks, 'book_id', input.book_id);
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 20;
  const offset = checks.integer('offset', input.offset, 0, 1_000_000) ?? 0;
  const sectionsOffset = checks.integer('sections_offset', input.sections_offset, 0, MAX_SECTIONS) ?? 0;
  const sectionsLimit = checks.integer('sections_limit', input.sections_limit, 1, SECTIONS_PAGE_MAX) ?? 10;
  checks.done();

  if (bookId) {
    const row = await bookRow(tx, bookId);
    if (!row) throw new NotFound('book', bookId);
    const [book] = await summaries(tx, [row]);
    const sections = await tx.bookSection.findMany({ where: { bookId }, orderBy: { position: 'asc' }, skip: sectionsOffset, take: sectionsLimit });
    const entries = sections.map((s) => ({
      section_id: s.id,
      position: s.position,
      kind: s.kind,
      title: s.title,
      version: s.version,
      word_count: s.wordCount,
      updated_by: s.updatedById,
      updated_at: s.updatedAt.toISOString(),
      snippet: null,
      text: s.text,
    }));
    return { books: [{ ...book, rank: null, sections: entries }], total: 1, limit, offset };
  }

  const q = query || null;
  if (q) {
    const [{ empty }] = await tx.$queryRawUnsafe<{ empty: boolean }[]>(`SELECT numnode(websearch_to_tsquery('english', $1::text)) = 0 AS empty`, q);
    if (empty) throw new ValidationFailed([{ path: 'query', message: 'has no words to search for (only punctuation or words too common to index)' }]);
  }
  const pattern = title ? `%${title.replace(/[\\%_]/g, '\\$&')}%` : null;
  const filters = `($2::text IS NULL OR b.title ILIKE $2::text) AND ($3::text IS NULL OR b.genre = $3::text)
    AND ($4::uuid IS NULL OR EXISTS (SELECT 1 FROM book_contributors c WHERE c.book_id = b.id AND c.agent_id = $4::uuid))`;
  const params = [q, pattern, genre ?? null, contributor ?? null];
  // A book matches by its own words (weighted double) or its best-matching section's.
  const ranked = `
    WITH q AS (SELECT websearch_to_tsquery('english', $1::text) AS tsq),
    hits AS (
      SELECT b.id AS book_id, ts_rank(b.search, q.tsq) * 2 AS r FROM books b, q WHERE b.search @@ q.tsq
      UNION ALL
      SELECT s.book_id, ts_rank(s.search, q.tsq) FROM book_sections s, q WHERE s.search @@ q.tsq
    ),
    ranked AS (SELECT book_id, max(r) AS rank FROM hits GROUP BY book_id)`;
  const rows = await tx.$queryRawUnsafe<(BookRow & { rank: number | null; total: number })[]>(
    q
      ? `${ranked}
         SELECT ${BOOK_COLUMNS}, ranked.rank::float8 AS rank, count(*) OVER ()::int AS total
         FROM ranked JOIN books b ON b.id = ranked.book_id JOIN agents s ON s.id = b.started_by
         WHERE ${filters} ORDER BY ranked.rank DESC, b.updated_at DESC, b.id LIMIT $5 OFFSET $6`
      : `SELECT ${BOOK_COLUMNS}, NULL::float8 AS rank, count(*) OVER ()::int AS total
         FROM books b JOIN agents s ON s.id = b.started_by
         WHERE ($1::text IS NULL) AND ${filters} ORDER BY b.updated_at DESC, b.id LIMIT $5 OFFSET $6`,
    ...params,
    limit,
    offset,
  );
  let total = rows[0]?.total ?? 0;
  if (!rows.length && offset > 0) {
    [{ total }] = await tx.$queryRawUnsafe<{ total: number }[]>(
      q
        ? `${ranked} SELECT count(*)::int AS total FROM ranked JOIN books b ON b.id = ranked.book_id WHERE ${filters}`
        : `SELECT count(*)::int AS total FROM books b WHERE ($1::text IS NULL) AND ${filters}`,
      ...params,
    );
  }
  const books = await summaries(tx, rows);
  const matches =
    q && rows.length
      ? await matchingSections(
          tx,
          q,
          rows.map((r) => r.id),
        )
      : [];
  return {
    books: books.map((b, i) => ({
      ...b,
      rank: rows[i].rank === null ? null : Number(Number(rows[i].rank).toFixed(6)),
      sections: matches.filter((m) => m.book_id === b.book_id).map(({ book_id: _book, ...m }) => m),
    })),
    total,
    limit,
    offset,
  };
}

/** The best-matching sections of each book (at most three), with a snippet of their text around the words found. */
async function matchingSections(tx: DbTx, query: string, bookIds: string[]): Promise<(SectionEntry & { book_id: string })[]> {
  const rows = await tx.$queryRawUnsafe<(Omit<SectionEntry, 'text'> & { book_id: string; updated_at: Date })[]>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $1::text) AS tsq)
     SELECT x.book_id::text, x.id::text AS section_id, x.position, x.kind, x.title, x.version, x.word_count, x.updated_by::text, x.updated_at,
            ts_headline('english', x.text, q.tsq, 'MaxFragments=2, MaxWords=30, MinWords=10, StartSel=**, StopSel=**, FragmentDelimiter=" … "') AS snippet
     FROM (
       SELECT s.*, row_number() OVER (PARTITION BY s.book_id ORDER BY ts_rank(s.search, q.tsq) DESC, s.position) AS n
       FROM book_sections s, q WHERE s.book_id = ANY($2::uuid[]) AND s.search @@ q.tsq
     ) x, q
     WHERE x.n <= ${SNIPPETS_PER_BOOK} ORDER BY x.book_id, x.n`,
    query,
    bookIds,
  );
  return rows.map((r) => ({
    book_id: r.book_id,
    section_id: r.section_id,
    position: Number(r.position),
    kind: r.kind,
    title: r.title,
    version: Number(r.version),
    word_count: Number(r.word_count),
    updated_by: r.updated_by,
    updated_at: iso(r.updated_at),
    snippet: r.snippet,
    text: null,
  }));
}
