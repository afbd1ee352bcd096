// The books capabilities the marketplace serves itself (docs/capabilities/books.md), through POST /execute:
// each answer checked against its output schema; books started, sections added and revised with every
// version attributed to its author and stale revisions refused; full-text search with stemming, filters,
// paging and snippets; reading a book's sections; bad input named under `input.`.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { errorPaths, expectProblem } from '../support/expect';
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server?.close());

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

const execute = (key: string, capability: string, input: unknown) => call('POST', '/execute', { key, body: { capability, input } });

async function run(key: string, capability: string, input: Record<string, unknown> = {}): Promise<any> {
  const res = await execute(key, capability, input);
  if (res.status !== 200) throw new Error(`${capability} answered ${res.status}: ${res.text}`);
  expect(res.body.status).toBe('success');
  let valid = validators.get(capability);
  if (!valid) validators.set(capability, (valid = ajv.compile(FIRST_PARTY.get(capability)!.outputSchema)));
  if (!valid(res.body.result))
    throw new Error(`${capability}'s answer fails its output schema: ${ajv.errorsText(valid.errors)}\n${JSON.stringify(res.body.result)}`);
  return res.body.result;
}

const contribute = (key: string, input: Record<string, unknown>) => run(key, 'partner-books-contribute', input);
const discover = (key: string, input: Record<string, unknown> = {}) => run(key, 'partner-books-discover', input);

let words = 0;
/** A word no other test writes (letters only, so it is one token, and stems to itself). */
const uniqueWord = () =>
  `zorb${String.fromCharCode(97 + (++words % 26))}${process.pid.toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}${'q'.repeat(1 + Math.floor(words / 26))}`;

describe('partner-books-contribute', () => {
  it('starts a book, adds chapters and passages, and revises them with every version attributed', async () => {
    const author = await registerAgent(server);
    const editor = await registerAgent(server);
    const started = await contribute(author.key, {
      book: { title: 'The Lighthouse Keepers', genre: 'Science Fiction', description: 'Machines that mind the coast.' },
      title: 'Arrival',
      text: 'The keeper arrived at dusk.\nThe lamp was cold.',
    });
    expect(started.action).toBe('started_book');
    expect(started.book).toMatchObject({
      title: 'The Lighthouse Keepers',
      genre: 'science fiction',
      description: 'Machines that mind the coast.',
      started_by: author.agentId,
      started_by_name: author.name,
      section_count: 1,
      word_count: 9,
      contributor_count: 1,
      contributors: [{ agent_id: author.agentId, name: author.name, contributions: 1 }],
    });
    expect(started.section).toMatchObject({ position: 1, kind: 'chapter', title: 'Arrival', version: 1, word_count: 9, agent_id: author.agentId, note: '' });
    const bookId = started.book.book_id;

    const passage = await contribute(editor.key, { bookId, kind: 'passage', text: 'Gulls circled the tower.' });
    expect(passage).toMatchObject({
      action: 'added_section',
      book: { section_count: 2, word_count: 13, contributor_count: 2 },
      section: { position: 2, kind: 'passage', title: '', version: 1, agent_id: editor.agentId },
    });

    const revised = await contribute(editor.key, {
      book_id: bookId,
      section_id: started.section.section_id,
      base_version: 1,
      text: 'The keeper arrived at dawn.',
      note: 'Morning, not evening',
    });
    expect(revised).toMatchObject({
      action: 'revised_section',
      book: { section_count: 2, word_count: 5 + 4, contributor_count: 2 },
      section: {
        section_id: started.section.section_id,
        position: 1,
        kind: 'chapter',
        title: 'Arrival',
        version: 2,
        word_count: 5,
        agent_id: editor.agentId,
        note: 'Morning, not evening',
      },
    });
    expect(revised.book.contributors).toEqual([
      { agent_id: editor.agentId, name: editor.name, contributions: 2 },
      { agent_id: author.agentId, name: author.name, contributions: 1 },
    ]);
    // Every version is kept with its author.
    const versions = await server.app.services.db.bookSectionVersion.findMany({
      where: { sectionId: started.section.section_id },
      orderBy: { version: 'asc' },
    });
    expect(versions.map((v) => [v.version, v.agentId, v.text])).toEqual([
      [1, author.agentId, 'The keeper arrived at dusk.\nThe lamp was cold.'],
      [2, editor.agentId, 'The keeper arrived at dawn.'],
    ]);

    // A revision written against an older version is refused; the same text again writes nothing.
    const stale = await execute(author.key, 'partner-books-contribute', {
      book_id: bookId,
      section_id: started.section.section_id,
      base_version: 1,
      text: 'Mine instead.',
    });
    expectProblem(stale, 409, 'conflict');
    const same = await contribute(author.key, {
      book_id: bookId,
      section_id: started.section.section_id,
      base_version: 2,
      text: 'The keeper arrived at dawn.',
    });
    expect(same).toMatchObject({ action: 'unchanged', section: { version: 2, agent_id: editor.agentId } });
    expect(same.book.contributors.find((c: any) => c.agent_id === author.agentId).contributions).toBe(1);
    const retitled = await contribute(author.key, {
      book_id: bookId,
      section_id: started.section.section_id,
      base_version: 2,
      title: 'Dawn',
      text: 'The keeper arrived at dawn.',
    });
    expect(retitled.section).toMatchObject({ version: 3, title: 'Dawn', agent_id: author.agentId });

    // Unknown books and sections of another book are 404.
    const other = await contribute(author.key, { book: { title: 'Another', genre: 'essay' }, text: 'One.' });
    expectProblem(
      await execute(author.key, 'partner-books-contribute', {
        book_id: other.book.book_id,
        section_id: started.section.section_id,
        base_version: 3,
        text: 'x',
      }),
      404,
      'not_found',
    );
    expectProblem(await execute(author.key, 'partner-books-contribute', { book_id: '00000000-0000-4000-8000-000000000000', text: 'x' }), 404, 'not_found');
  });

  it('refuses bad input with 400 naming each field under input.', async () => {
    const me = await registerAgent(server);
    const { book } = await contribute(me.key, { book: { title: 'Bad input', genre: 'test' }, text: 'A start.' });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ text: 'no book' }, ['input.book_id']],
      [{ book_id: book.book_id, book: { title: 'Both', genre: 'x' }, text: 'both' }, ['input.book']],
      [{ book: { title: '', genre: '!!!' }, text: 'x' }, ['input.book.genre', 'input.book.title']],
      [{ book: { title: 'Fine', genre: '!!!' }, text: 'x' }, ['input.book.genre']],
      [{ book: { title: 'Fine' }, text: 'x' }, ['input.book.genre']],
      [{ book_id: 'nope', text: '' }, ['input.book_id', 'input.text']],
      [{ book_id: book.book_id, text: 'x'.repeat(20_001) }, ['input.text']],
      [{ book_id: book.book_id, section_id: book.book_id, text: 'x' }, ['input.base_version']],
      [{ book_id: book.book_id, base_version: 1, text: 'x' }, ['input.base_version']],
      [{ book_id: book.book_id, kind: 'poem', text: 'x' }, ['input.kind']],
      [{ bookId: book.book_id, text: 'x', author: me.agentId }, ['input.author']],
    ];
    for (const [input, paths] of cases) {
      const res = await execute(me.key, 'partner-books-contribute', input);
      expectProblem(res, 400, 'validation_failed');
      expect([input, errorPaths(res).sort()]).toEqual([input, [...paths].sort()]);
    }
  });
});

describe('partner-books-discover', () => {
  it('finds books by text with stemming, by title, genre and contributor, paged, with snippets', async () => {
    const a = await registerAgent(server);
    const b = await registerAgent(server);
    const w = uniqueWord();
    const dragons = await contribute(a.key, { book: { title: `Dragons of ${w}`, genre: 'Fantasy' }, text: 'In the north the dragons sleep.' });
    const quiet = await contribute(b.key, {
      book: { title: `Quiet ${w} rooms`, genre: 'Literary', description: 'Nothing happens, slowly.' },
      title: 'Morning',
      text: `Tea, then ${w} at the window. A dragon kite, far off, over the hills.`,
    });
    await contribute(a.key, { book_id: quiet.book.book_id, kind: 'passage', text: 'The kettle again.' });
    await contribute(b.key, { book: { title: 'Unrelated', genre: 'Fantasy' }, text: 'Nothing to find here.' });

    // "dragon" finds "dragons" (stemming); the book whose own title matches ranks first.
    const found = await discover(b.key, { query: `dragon ${w}` });
    expect(found.books.map((x: any) => x.book_id)).toEqual([dragons.book.book_id, quiet.book.book_id]);
    expect(found).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(found.books[0].rank).toBeGreaterThan(found.books[1].rank);
    expect(found.books[1].sections).toEqual([
      expect.objectContaining({
        section_id: quiet.section.section_id,
        position: 1,
        title: 'Morning',
        text: null,
        snippet: expect.stringContaining('**dragon**'),
      }),
    ]);
    // Web-search syntax: -word excludes (the quiet book's section speaks of a kite).
    expect((await discover(b.key, { query: 'dragon -kite' })).books.map((x: any) => x.book_id)).toEqual([dragons.book.book_id]);
    // Paging.
    const second = await discover(b.key, { query: `dragon ${w}`, limit: 1, offset: 1 });
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(second.books.map((x: any) => x.book_id)).toEqual([quiet.book.book_id]);
    expect(await discover(b.key, { query: `dragon ${w}`, offset: 9 })).toMatchObject({ books: [], total: 2 });

    // Filters, with or without a query: a part of the title (any case), the genre (any case), a contributor.
    expect((await discover(b.key, { title: `QUIET ${w.toUpperCase()}` })).books.map((x: any) => x.book_id)).toEqual([quiet.book.book_id]);
    expect((await discover(b.key, { query: w, genre: 'FANTASY' })).books.map((x: any) => x.book_id)).toEqual([dragons.book.book_id]);
    const byA = await discover(b.key, { contributor: a.agentId, title: w });
    expect(byA.books.map((x: any) => x.book_id).sort()).toEqual([dragons.book.book_id, quiet.book.book_id].sort());
    expect(byA.books.every((x: any) => x.rank === null && x.sections.length === 0)).toBe(true);
    // A title with LIKE's wildcards means them literally.
    expect((await discover(b.key, { title: `${w}%` })).total).toBe(0);
  });

  it('reads a book’s sections in order with their text, a page at a time', async () => {
    const me = await registerAgent(server);
    const started = await contribute(me.key, { book: { title: 'Serial', genre: 'mystery' }, text: 'Part one.' });
    const bookId = started.book.book_id;
    for (let i = 2; i <= 4; i++) await contribute(me.key, { book_id: bookId, text: `Part ${i}.` });
    const page = await discover(me.key, { book_id: bookId, sections_offset: 1, sections_limit: 2 });
    expect(page).toMatchObject({ total: 1, books: [{ book_id: bookId, section_count: 4, rank: null }] });
    expect(page.books[0].sections.map((s: any) => [s.position, s.text, s.snippet])).toEqual([
      [2, 'Part 2.', null],
      [3, 'Part 3.', null],
    ]);
    expectProblem(await execute(me.key, 'partner-books-discover', { book_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  });

  it('refuses bad input with 400 naming each field under input.', async () => {
    const me = await registerAgent(server);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ query: 'the of' }, ['input.query']],
      [{ query: 'x'.repeat(201) }, ['input.query']],
      [{ query: '' }, ['input.query']],
      [{ limit: 0, offset: -1 }, ['input.limit', 'input.offset']],
      [{ book_id: 'nope', sections_limit: 21 }, ['input.book_id', 'input.sections_limit']],
      [{ genre: '!!!', contributor: 'nope' }, ['input.contributor', 'input.genre']],
      [{ sectionsLimit: 0 }, ['input.sectionsLimit']],
    ];
    for (const [input, paths] of cases) {
      const res = await execute(me.key, 'partner-books-discover', input);
      expectProblem(res, 400, 'validation_failed');
      expect([input, errorPaths(res).sort()]).toEqual([input, [...paths].sort()]);
    }
  });
});
