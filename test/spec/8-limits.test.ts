// Spec §8 limits, with CONTRACT §5 (buckets per route and per credential, the headers, Retry-After): the Rate
// column of every endpoint (test/support/spec-endpoints.ts), 429 past a 30, a 60 and execute's 100 a minute,
// the bounds on names, descriptions, URLs, reputation and quality_score, paging defaults, uptime's 90 days and
// the 24-hour rotation grace (on a fake clock; rate windows run on real time). Rate limits are on here, and
// registration's bucket is per address (30 a minute): this file registers well under 30 agents.
import { FakeClock } from '../support/clock';
import { errorPaths, expectProblem } from '../support/expect';
import { SPEC_ENDPOINTS, requestOf } from '../support/spec-endpoints';
import { api, registerAgent, startServer, uniqueName, type HttpResult, type TestServer } from '../support/server';

const HOUR = 3_600_000;
const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ clock });
  call = api(server);
});
afterAll(() => server.close());

/** The rate-limit headers of an answer, as numbers. */
function rateOf(res: HttpResult) {
  const header = (name: string) => (res.headers.get(name) === null ? null : Number(res.headers.get(name)));
  return { limit: header('x-ratelimit-limit'), remaining: header('x-ratelimit-remaining'), reset: header('x-ratelimit-reset') };
}

function expectResetWithinAMinute(res: HttpResult) {
  const reset = rateOf(res).reset!;
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(now + 61);
}

async function service(key: string, fields: Record<string, unknown> = {}) {
  return call('POST', '/services/register', {
    key,
    body: {
      name: uniqueName('svc'),
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'A service a limits test registers',
      pricing_model: 'free',
      ...fields,
    },
  });
}

describe('§8.1 and §8.2 rate limits', () => {
  it('§8.1 every endpoint has the Rate column’s limit (30, 60, or 100 for execute); §8.2 every rate-limited answer carries X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const wrong: string[] = [];
    for (const e of SPEC_ENDPOINTS) {
      // Without a credential: a B endpoint answers 401 and changes nothing, and its bucket is still spent first.
      const { path, body } = requestOf(e);
      const res = await call(e.method, path, { body });
      const rate = rateOf(res);
      if (e.rate === null) {
        if (rate.limit !== null || rate.remaining !== null || rate.reset !== null)
          wrong.push(`${e.method} ${e.path}: limited (${rate.limit}) where the spec sets no rate`);
        continue;
      }
      if (rate.limit !== e.rate) wrong.push(`${e.method} ${e.path}: X-RateLimit-Limit ${rate.limit}, the spec says ${e.rate}`);
      if (rate.remaining === null || !(rate.remaining >= 0 && rate.remaining < e.rate))
        wrong.push(`${e.method} ${e.path}: X-RateLimit-Remaining ${rate.remaining}`);
      if (rate.reset === null || !(rate.reset > Date.now() / 1000 - 1 && rate.reset <= Date.now() / 1000 + 61))
        wrong.push(`${e.method} ${e.path}: X-RateLimit-Reset ${rate.reset}`);
    }
    expect(wrong).toEqual([]);
  });

  it('§8.2 a 30-a-minute route (resolve): the 31st request in the minute answers 429, with the headers and Retry-After', async () => {
    const me = await registerAgent(server);
    const resolve = () => call('POST', '/resolve', { key: me.key, body: { capability: 'summarize' } });
    for (let i = 1; i <= 30; i++) {
      const res = await resolve();
      expect({ i, status: res.status, limit: rateOf(res).limit, remaining: rateOf(res).remaining }).toEqual({ i, status: 200, limit: 30, remaining: 30 - i });
    }
    const refused = await resolve();
    expectProblem(refused, 429, 'rate_limited');
    expect(rateOf(refused)).toMatchObject({ limit: 30, remaining: 0 });
    expectResetWithinAMinute(refused);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('§8.2 a 60-a-minute route (GET /agents/me): the 61st answers 429; CONTRACT §5 counted per credential, so another agent is untouched', async () => {
    const me = await registerAgent(server);
    const other = await registerAgent(server);
    const answers = await Promise.all(Array.from({ length: 60 }, () => call('GET', '/agents/me', { key: me.key })));
    expect(answers.map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(answers.map((r) => rateOf(r).remaining).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    const refused = await call('GET', '/agents/me', { key: me.key });
    expectProblem(refused, 429, 'rate_limited');
    expect(rateOf(refused)).toMatchObject({ limit: 60, remaining: 0 });
    expectResetWithinAMinute(refused);
    const theirs = await call('GET', '/agents/me', { key: other.key });
    expect(theirs.status).toBe(200);
    expect(rateOf(theirs)).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('§8.1 execute has 100 a minute: the 101st answers 429', async () => {
    const me = await registerAgent(server);
    const execute = () => call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
    // All at once, as a client may send them: the embedded database queues their transactions, none fails.
    const answers = await Promise.all(Array.from({ length: 100 }, execute));
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(answers.map((r) => rateOf(r).remaining).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(answers.every((r) => r.body.status === 'success')).toBe(true);
    const refused = await execute();
    expectProblem(refused, 429, 'rate_limited');
    expect(rateOf(refused)).toMatchObject({ limit: 100, remaining: 0 });
    expectResetWithinAMinute(refused);
  });
});

describe('§8.3 and §8.4 bounds on values', () => {
  it('§8.3 an agent name has 3-50 characters', async () => {
    const register = (name: string) => call('POST', '/agents/register', { body: { name, description: 'Named at a bound', ownerEmail: 'bounds@example.com' } });
    const base = uniqueName('n').replace(/-/g, '');
    for (const name of [base.slice(0, 2), `${base}${'x'.repeat(51)}`.slice(0, 51)]) {
      const res = await register(name);
      expectProblem(res, 400, 'validation_failed');
      expect({ length: name.length, paths: errorPaths(res) }).toEqual({ length: name.length, paths: ['name'] });
    }
    for (const name of [`${base.slice(-2)}${Math.floor(Math.random() * 10)}`.slice(0, 3), `${base}${'y'.repeat(50)}`.slice(0, 50)]) {
      const res = await register(name);
      expect({ length: name.length, status: res.status }).toEqual({ length: name.length, status: 201 });
    }
  });

  it('§8.3 a service description has at least 10 characters', async () => {
    const me = await registerAgent(server);
    const short = await service(me.key, { description: '123456789' });
    expectProblem(short, 400, 'validation_failed');
    expect(errorPaths(short)).toEqual(['description']);
    expect((await service(me.key, { description: '1234567890' })).status).toBe(201);
  });

  it('§8.3 the service endpoint and the ticket receive URL must be HTTPS', async () => {
    const me = await registerAgent(server);
    const plain = await service(me.key, { endpoint: 'http://provider.example.com/run' });
    expectProblem(plain, 400, 'validation_failed');
    expect(errorPaths(plain)).toEqual(['endpoint']);
    const svc = await service(me.key);
    expect(svc.status).toBe(201);
    const endpoint = (url: string) =>
      call('POST', '/tickets/register-endpoint', { key: me.key, body: { service_key: svc.body.service_key, ticket_receive_url: url, name: 'Inbox' } });
    const plainTickets = await endpoint('http://provider.example.com/tickets');
    expectProblem(plainTickets, 400, 'validation_failed');
    expect(errorPaths(plainTickets)).toEqual(['ticket_receive_url']);
    expect((await endpoint('https://provider.example.com/tickets')).status).toBe(201);
  });

  it('§8.4 reputation and min_reputation range 0-100', async () => {
    const me = await registerAgent(server);
    const reputation = (await call('GET', '/agents/me', { key: me.key })).body.reputation_score;
    expect(Number.isInteger(reputation) && reputation >= 0 && reputation <= 100).toBe(true);
    for (const min of [0, 100]) {
      expect((await call('POST', '/resolve', { key: me.key, body: { capability: 'summarize', min_reputation: min } })).status).toBe(200);
      expect((await call('GET', `/services?min_reputation=${min}`)).status).toBe(200);
    }
    for (const min of [-1, 101]) {
      const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: 'summarize', min_reputation: min } });
      expectProblem(resolved, 400, 'validation_failed');
      expect(errorPaths(resolved)).toEqual(['min_reputation']);
      const listed = await call('GET', `/services?min_reputation=${min}`);
      expectProblem(listed, 400, 'validation_failed');
      expect(errorPaths(listed)).toEqual(['min_reputation']);
    }
  });

  it('§8.4 quality_score ranges 0-100', async () => {
    const me = await registerAgent(server);
    const spark = async (quality_score: number) => {
      const task = await call('POST', '/tasks', { key: me.key, body: { intent: `Judged at ${quality_score}` } });
      return call('POST', `/tasks/${task.body.task_id}/publish-spark`, {
        key: me.key,
        body: { title: 'A finding', content: 'What the task found.', spark_type: 'insight', quality_score },
      });
    };
    for (const q of [0, 100]) expect({ q, status: (await spark(q)).status }).toEqual({ q, status: 201 });
    for (const q of [-1, 101]) {
      const res = await spark(q);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['quality_score']);
    }
  });
});

describe('§8.6 paging and §8.7 rotation', () => {
  it('§8.6 transactions page with limit default 20 and offset default 0', async () => {
    const me = await registerAgent(server);
    for (let i = 0; i < 21; i++) {
      const res = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
      expect(res.status).toBe(200);
    }
    const page = await call('GET', '/agents/me/transactions', { key: me.key });
    expect(page.status).toBe(200);
    expect(page.body.transactions).toHaveLength(20);
    const explicit = await call('GET', '/agents/me/transactions?limit=20&offset=0', { key: me.key });
    expect(explicit.body.transactions).toEqual(page.body.transactions);
    const next = await call('GET', '/agents/me/transactions?offset=20', { key: me.key });
    expect(next.body.transactions).toHaveLength(1);
  });

  it('§8.6 uptime takes days up to 90', async () => {
    const ninety = await call('GET', '/uptime?days=90');
    expect(ninety.status).toBe(200);
    expect(typeof ninety.body.uptime_percent).toBe('number');
    const more = await call('GET', '/uptime?days=91');
    expectProblem(more, 400, 'validation_failed');
    expect(errorPaths(more)).toEqual(['days']);
  });

  it('§8.7 a rotated key stays valid for a 24-hour grace period, then not', async () => {
    const owner = await registerAgent(server);
    const svc = await service(owner.key);
    const holder = await registerAgent(server);
    const old = await call('POST', `/keys/provision/${svc.body.service_key}`, { key: holder.key, body: {} });
    expect(old.status).toBe(201);
    const rotatedAt = clock.now().getTime();
    const rotated = await call('POST', `/keys/${old.body.sub_key_id}/rotate`, { key: holder.key });
    expect(rotated.status).toBe(201);
    expect(Date.parse(rotated.body.grace_period_ends)).toBe(rotatedAt + 24 * HOUR);
    const verify = (key: string) => call('POST', '/keys/verify', { body: { key } });
    clock.advance(24 * HOUR - 1_000);
    expect((await verify(old.body.sub_key)).status).toBe(200);
    clock.advance(2_000);
    expectProblem(await verify(old.body.sub_key), 401, 'unauthorized');
    expect((await verify(rotated.body.new_sub_key)).status).toBe(200);
  });
});
