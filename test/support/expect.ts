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

/** Reads until `ok` holds or the time runs out; answers the last value read (the test's expect says what was wrong). */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls every 10 ms until `done` holds, failing after `withinMs`; answers how long it took. */
export async function within(withinMs: number, done: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await done()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
