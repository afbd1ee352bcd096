// Shared assertions: a problem+json answer (CONTRACT §4) and the field paths of a validation error.
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
