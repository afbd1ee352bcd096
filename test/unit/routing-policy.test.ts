// Failure categories read from each reason an attempt can carry, a policy read with every problem named,
// and Retry-After read in both of its forms.
import { categoryOf, FAILURE_CATEGORIES } from '../../src/domain/execution/receipts';
import { NO_POLICY, policyShown, readPolicy } from '../../src/domain/execution/policy';
import { retryAfterSeconds } from '../../src/platform/http';
import { ValidationFailed } from '../../src/platform/errors';
import { Checks } from '../../src/platform/validate';

const provider = (reason: string, statusCode: number | null = null) => categoryOf({ outcome: 'failure', reason, statusCode, serviceId: 'svc' });
const marketplace = (reason: string) => categoryOf({ outcome: 'failure', reason, statusCode: null, serviceId: null });

it('reads every reason of a provider attempt as one category of the closed list', () => {
  expect(categoryOf({ outcome: 'success', reason: null, statusCode: 200, serviceId: 'svc' })).toBeNull();
  const cases: [string, number | null, string][] = [
    ['http_500', 500, 'provider_5xx'],
    ['http_503', 503, 'provider_5xx'],
    ['http_404', 404, 'provider_4xx'],
    ['http_422', 422, 'provider_4xx'],
    ['http_429', 429, 'provider_rate_limited'],
    ['http_302', 302, 'bad_output'],
    ['invalid_json', 200, 'bad_output'],
    ['empty_body', 200, 'bad_output'],
    ['too_large', null, 'bad_output'],
    ['timeout', null, 'timeout'],
    ['deadline_exceeded', null, 'deadline_exceeded'],
    ['connection', null, 'connect_error'],
    ['blocked_address', null, 'connect_error'],
    ['invalid_url', null, 'connect_error'],
    ['tls', null, 'tls_error'],
  ];
  for (const [reason, status, category] of cases) expect({ reason, category: provider(reason, status) }).toEqual({ reason, category });
  for (const [, , category] of cases) expect(FAILURE_CATEGORIES).toContain(category);
});

it("reads the marketplace's own failures: refused input its 4xx, a bad answer bad_output, any problem its 5xx", () => {
  expect(marketplace('invalid_input')).toBe('provider_4xx');
  expect(marketplace('invalid_output')).toBe('bad_output');
  expect(marketplace('timeout')).toBe('timeout');
  expect(marketplace('deadline_exceeded')).toBe('deadline_exceeded');
  expect(marketplace('capability_unavailable')).toBe('provider_5xx');
});

it('reads a policy, naming every field it refuses, and shows only the fields set', () => {
  const read = (raw: unknown, mode: 'auto' | 'chosen' = 'auto') => {
    const checks = new Checks();
    const policy = readPolicy(checks, raw, mode);
    checks.done();
    return policy;
  };
  expect(read(undefined)).toBeNull();
  const policy = read({ maxCostCents: 5, deadlineMs: 300, only: ['svc_a', 'svc_a'], allowFallbacks: false, sort: 'reliability' })!;
  expect(policy).toEqual({ ...NO_POLICY, maxCostCents: 5, deadlineMs: 300, only: ['svc_a'], allowFallbacks: false, sort: 'reliability' });
  expect(policyShown(policy)).toEqual({ maxCostCents: 5, deadlineMs: 300, only: ['svc_a'], allowFallbacks: false, sort: 'reliability' });
  const refused = (() => {
    try {
      read({ maxCostCents: 1.5, deadlineMs: 200_000, ignore: 'svc_a', order: Array.from({ length: 21 }, (_, i) => `svc_${i}`), minSuccessRate: -0.1 });
    } catch (err) {
      return err as ValidationFailed;
    }
  })();
  expect(refused).toBeInstanceOf(ValidationFailed);
  expect(refused!.errors.map((e) => e.path).sort()).toEqual(
    ['routing.deadlineMs', 'routing.ignore', 'routing.maxCostCents', 'routing.minSuccessRate', 'routing.order'].sort(),
  );
  expect(() => read({ only: ['svc_a'] }, 'chosen')).toThrow(/routing\.only: chooses among ranked providers/);
  expect(read({ maxCostCents: 3, deadlineMs: 10, allowFallbacks: true }, 'chosen')).toMatchObject({ maxCostCents: 3, deadlineMs: 10 });
});

it('reads Retry-After as seconds or as a date, bounded', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  expect(retryAfterSeconds(undefined, now, 600)).toBeNull();
  expect(retryAfterSeconds('2', now, 600)).toBe(2);
  expect(retryAfterSeconds(' 7200 ', now, 600)).toBe(600);
  expect(retryAfterSeconds('Sun, 29 Nov 2026 12:00:30 GMT', now, 600)).toBe(30);
  expect(retryAfterSeconds('Sun, 29 Nov 2026 11:00:00 GMT', now, 600)).toBe(0);
  expect(retryAfterSeconds('soon', now, 600)).toBeNull();
});
