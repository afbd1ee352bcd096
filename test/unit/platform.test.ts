// Pure platform pieces: secrets and ids, bearer parsing, problem mapping, log redaction.
import { documentDepth, inputProblem } from '../../src/platform/input-boundary';
import { inLanes } from '../../src/platform/lanes';
import { loadConfig } from '../../src/config';
import { Writable } from 'node:stream';
import { GraphQLError } from 'graphql';
import { Prisma } from '../../src/db/generated/prisma/client';
import { parseBearer } from '../../src/platform/auth';
import { AppError, codeOf, Conflict, NotFound, problemFromError, RateLimited, ValidationFailed } from '../../src/platform/errors';
import { base62, newAdminKey, newAgentKey, newMasterKey, secretHint, sha256Hex } from '../../src/platform/ids';
import { createLogger, redactSecrets } from '../../src/platform/logger';

describe('ids and secrets', () => {
  it('makes keys of the documented forms', () => {
    expect(newAgentKey()).toMatch(/^ag_[0-9A-Za-z]{24}$/);
    expect(newMasterKey()).toMatch(/^key_master_[0-9A-Za-z]{40}$/);
    expect(newAdminKey()).toMatch(/^key_admin_[0-9A-Za-z]{40}$/);
  });

  it('draws base62 characters without favouring any', () => {
    const counts = new Map<string, number>();
    for (const ch of base62(62 * 400)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(250);
  });

  it('hashes with SHA-256 and shows only a hint', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = newMasterKey();
    expect(secretHint(key)).toBe(`${key.slice(0, 'key_master_'.length + 4)}…`);
  });
});

describe('parseBearer', () => {
  it.each([
    [undefined, 'none'],
    ['', 'none'],
    ['Basic abc', 'malformed'],
    ['Bearer', 'malformed'],
    ['Bearer ag_abcdefghijklmnopqrstuvwx', 'malformed'],
    ['Bearer key_master_short', 'malformed'],
    [`Bearer key_master_${'a'.repeat(40)}`, 'key'],
    [`bearer   key_admin_${'a'.repeat(40)}`, 'key'],
  ])('reads %p as %s', (header, kind) => {
    expect(parseBearer(header).kind).toBe(kind);
  });
});

describe('problems', () => {
  const base = 'https://m.example';
  it('maps our errors to their status and code', () => {
    expect(problemFromError(base, new NotFound('ticket', 'ST-1'), 'req_1')).toMatchObject({
      status: 404,
      code: 'not_found',
      type: `${base}/problems/not-found`,
    });
    expect(problemFromError(base, new Conflict('dup'), 'r')).toMatchObject({ status: 409, code: 'conflict', detail: 'dup' });
    expect(problemFromError(base, new ValidationFailed([{ path: 'a', message: 'bad' }]), 'r')).toMatchObject({
      status: 400,
      errors: [{ path: 'a', message: 'bad' }],
    });
    expect(problemFromError(base, new RateLimited(5), 'r')).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('finds our error inside a located GraphQL error', () => {
    const located = new GraphQLError('x', { originalError: new NotFound('agent') });
    expect(codeOf(located)).toBe('not_found');
    expect(problemFromError(base, located, 'r').status).toBe(404);
  });

  it("treats graphql-js's own errors (a variable of the wrong type) as the client's", () => {
    const coercion = new GraphQLError('Variable "$i" got invalid value', { originalError: new GraphQLError('Field "x" is not defined') });
    expect(codeOf(coercion)).toBe('bad_request');
    expect(problemFromError(base, coercion, 'r').status).toBe(400);
  });

  it('answers 503 with Retry-After, not 500, when the database could not start a transaction in time', () => {
    const busy = new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
      code: 'P2028',
      clientVersion: Prisma.prismaVersion.client,
    });
    const located = new GraphQLError('x', { originalError: busy });
    expect(codeOf(located)).toBe('service_unavailable');
    expect(problemFromError(base, located, 'r').status).toBe(503);
    // Another transaction error is not the database's unavailability.
    const closed = new Prisma.PrismaClientKnownRequestError('Transaction API error: Transaction already closed', {
      code: 'P2028',
      clientVersion: Prisma.prismaVersion.client,
    });
    expect(codeOf(new GraphQLError('x', { originalError: closed }))).toBe('internal');
    // One that ran past its time on a machine too busy to finish it is.
    const expired = new Prisma.PrismaClientKnownRequestError(
      'Transaction API error: Transaction already closed: A commit cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms, however 5012 ms passed since the start of the transaction.',
      { code: 'P2028', clientVersion: Prisma.prismaVersion.client },
    );
    expect(codeOf(new GraphQLError('x', { originalError: expired }))).toBe('service_unavailable');
  });

  it('never shows the message of an unexpected error', () => {
    const p = problemFromError(base, new Error('SELECT * FROM secrets failed at db.ts:12'), 'req_9');
    expect(p).toEqual({
      type: `${base}/problems/internal`,
      title: 'Internal Server Error',
      status: 500,
      detail: 'Internal server error',
      code: 'internal',
      request_id: 'req_9',
    });
  });

  it('carries the code and HTTP status in GraphQL extensions', () => {
    const err = new AppError('forbidden', 'no');
    expect(err.extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
  });
});

describe('log redaction', () => {
  it('masks credentials in headers, fields and free text', () => {
    const lines: string[] = [];
    const log = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
    const key = newMasterKey();
    log.info({ req: { headers: { authorization: `Bearer ${key}` } }, body: { masterKey: key } }, `failed with ${key}`);
    expect(lines.join('')).not.toContain(key.slice('key_master_'.length));
    expect(redactSecrets(`x ${key} y`)).toBe('x key_master_[REDACTED] y');
  });
});

describe('configuration', () => {
  it('gives sub-keys a 365-day lifetime of at most 730 days, both configurable, the default never past the maximum', () => {
    expect(loadConfig({})).toMatchObject({ subKeyLifetimeDays: 365, subKeyMaxLifetimeDays: 730 });
    expect(loadConfig({ SUB_KEY_LIFETIME_DAYS: '30', SUB_KEY_MAX_LIFETIME_DAYS: '90' })).toMatchObject({ subKeyLifetimeDays: 30, subKeyMaxLifetimeDays: 90 });
    expect(loadConfig({ SUB_KEY_MAX_LIFETIME_DAYS: '90' })).toMatchObject({ subKeyLifetimeDays: 90 });
    expect(() => loadConfig({ SUB_KEY_LIFETIME_DAYS: '100', SUB_KEY_MAX_LIFETIME_DAYS: '90' })).toThrow(/SUB_KEY_LIFETIME_DAYS/);
    expect(() => loadConfig({ SUB_KEY_LIFETIME_DAYS: '0' })).toThrow(/SUB_KEY_LIFETIME_DAYS/);
  });

  it("opens sandbox wallets with the faucet's cap unless told otherwise, 0 meaning empty", () => {
    expect(loadConfig({}).payments).toMatchObject({ faucetCap: '10', sandboxStartingBalance: '10' });
    expect(loadConfig({ SANDBOX_FAUCET_CAP: '3' }).payments).toMatchObject({ faucetCap: '3', sandboxStartingBalance: '3' });
    expect(loadConfig({ SANDBOX_STARTING_BALANCE: '0' }).payments.sandboxStartingBalance).toBe('0');
    expect(loadConfig({ SANDBOX_STARTING_BALANCE: '2.5' }).payments.sandboxStartingBalance).toBe('2.5');
    for (const bad of ['-1', 'lots', '1e3']) expect(() => loadConfig({ SANDBOX_STARTING_BALANCE: bad })).toThrow(/SANDBOX_STARTING_BALANCE/);
  });
});

describe('the input boundary', () => {
  it('counts how deeply a GraphQL document nests, outside strings and comments', () => {
    expect(documentDepth('{ a { b(x: [1, {y: 2}]) } }')).toBe(5);
    expect(documentDepth('{ a(s: "{{{{[[[(((", t: """ {{{ \\""" {{{ """) # {{{{{\n }')).toBe(2);
    expect(documentDepth(`{${'a {'.repeat(100_000)}}`)).toBe(100_001);
  });

  it('finds the first value too deep or unstorable, without recursion, naming its path', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(inputProblem({ x: deep })).toEqual({ path: `x${'.0'.repeat(31)}`, message: 'is nested deeper than 32 levels' });
    expect(inputProblem({ a: [{ b: 'ok' }, { c: 'no\u0000' }] }, 'body')).toEqual({ path: 'body.a.1.c', message: expect.stringMatching(/NUL/) });
    expect(inputProblem({ ['\ud800']: 1 })?.message).toMatch(/key that must not contain a lone UTF-16 surrogate/);
    expect(inputProblem({ emoji: '😀', fine: ['x', 1, null, true] })).toBeUndefined();
    // Paths are spelled from the caller's base, with the bad key's characters shown as '?'.
    expect(inputProblem({ a: [{ ['b\u0000']: 1 }] }, 'body')).toEqual({ path: 'body.a.0.b?', message: expect.stringMatching(/^has a key that .*NUL/) });
    expect(inputProblem('no\u0000', 'q')?.path).toBe('q');
    expect(inputProblem(['no\u0000'])?.path).toBe('0');
  });
});

describe('inLanes', () => {
  // The items' durations are the schedule under test: they run on jest's fake timers, moved to the end at
  // once, so a busy machine cannot reorder them.
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('works every item, never more than its lanes at once, a slow item holding up one lane only', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    // Item 0 takes 300 ms; the other nine 20 ms each: the two lanes beside it finish them all first (in waves
    // of three, items 3 to 9 would have waited for it).
    const worked = inLanes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3, async (item) => {
      running++;
      most = Math.max(most, running);
      await pause(item === 0 ? 300 : 20);
      running--;
      done.push(item);
    });
    await jest.runAllTimersAsync();
    await worked;
    expect(most).toBe(3);
    expect(done).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
  });

  it('stops taking items after a failure and throws it once the started ones are done', async () => {
    const finished: number[] = [];
    const refused = expect(
      inLanes([1, 2, 3, 4, 5, 6], 2, async (item) => {
        if (item === 2) throw new Error('two failed');
        await pause(item === 1 ? 50 : 5);
        finished.push(item);
      }),
    ).rejects.toThrow('two failed');
    await jest.runAllTimersAsync();
    await refused;
    expect(finished).toEqual([1]);
    await expect(inLanes([], 4, async () => {})).resolves.toBeUndefined();
  });
});
