// Shared assertions: a problem+json answer (CONTRACT §4), the field paths of a validation error, and
// waiting for a state that comes about in the background.
import type { HttpResult } from './server';

export function expectProblem(res: Pick<HttpResult, 'status' | 'headers' | 'body'>, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code });
  expect(res.body.type).toMatch(new RegExp(`/problems/${code.replace(/_/g, '-')}$`));
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  expect(typeof res.body.detail).toBe('string');
  expect(JSON.stringify(res.body)).not.toMatch(/at .+\.ts:\d+|SELECT|prisma/i);
}

export function errorPaths(res: Pick<HttpResult, 'body'>): string[] {
  return (res.body.errors ?? []).map((e: { path: string }) => e.path).sort();
}

/** How often a wait below reads again: a tick, so that it returns as soon as the state holds. */
const POLL_MS = 10;

export interface Patience {
  /** Between two reads (default a tick); longer for a read that costs the server under test much. */
  everyMs?: number;
  /** Names what did not come about, in the error of `within`. */
  what?: string;
}

class NotWithin extends Error {}

/**
 * The one wait on a state that comes about in the background: polls `done` until it holds, failing after
 * `withinMs`; answers how long it took.
 */
export async function within(withinMs: number, done: () => Promise<boolean>, { everyMs = POLL_MS, what }: Patience = {}): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await done()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new NotWithin(`not within ${withinMs} ms${what ? `: ${what}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads until `ok` holds or the time runs out; answers the last value read (the test's expect says what was wrong). */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 10_000,
  { everyMs }: Pick<Patience, 'everyMs'> = {},
): Promise<T> {
  let value!: T;
  await within(timeoutMs, async () => ok((value = await read())), { everyMs }).catch((err: unknown) => {
    if (!(err instanceof NotWithin)) throw err;
  });
  return value;
}

/**
 * A window for what must NOT happen, where no event says it never will: what would come, comes within it
 * on an idle machine. Short on purpose: a busy machine makes it prove less, never fail a correct run.
 */
export const QUIET_MS = 100;
export const quiet = (ms = QUIET_MS) => new Promise<void>((r) => setTimeout(r, ms));
