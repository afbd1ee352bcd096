// A caller's routing policy on execute (docs/execution.md, Routing policy) against real HTTPS providers on
// loopback: a price bound, a deadline over the whole call, who may answer and in what order, the ranking,
// minimums of measured quality, the wait for a cooldown; failure categories a program acts on, a provider's
// 429 and its Retry-After, and refusals of the caller's input counted apart. On every surface: REST,
// GraphQL, MCP and A2A.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { api, besideServer, gql, http, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '10000' } });
  call = api(server);
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await server.close();
});

async function provider(name = 'provider') {
  const p = await startProvider(name);
  providers.push(p);
  return p;
}

/** A provider agent with a service for `capability` at `cost` cents, answered by `p`. */
async function offer(capability: string, p: { url: string }, cost = 0) {
  const agent = await registerAgent(server);
  const body = { endpoint: p.url, capabilities: [capability], pricing_model: cost ? 'per_call' : 'free', cost_per_call: cost };
  const service = await registerService(server, agent.key, body);
  return { agent, serviceId: service.service_id, serviceKey: service.service_key };
}

const run = (key: string, body: unknown) => call('POST', '/execute', { key, body });
const keys = (res: { body: any }) => res.body.attempts.map((a: any) => a.service_key);
const balance = async (me: { key: string; agentId: string }) =>
  (await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key })).body.balance_base_units as string;

describe('a call with no policy', () => {
  it('routes as before and answers routing null', async () => {
    const cap = uniqueSlug('plain');
    const [a, b] = [await provider('a'), await provider('b')];
    const first = await offer(cap, a, 0);
    await offer(cap, b, 40);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', routing: null, attempts: [{ service_key: first.serviceKey, category: null }] });
  });
});

describe('max_cost_cents', () => {
  it('skips a provider over it, the one ordered first, saying so, and pays the one under it', async () => {
    const cap = uniqueSlug('maxcost');
    const [dear, cheap] = [await provider('dear'), await provider('cheap')];
    const d = await offer(cap, dear, 50);
    const c = await offer(cap, cheap, 5);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, routing: { max_cost_cents: 10, order: [d.serviceKey] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', provider: { service_key: c.serviceKey }, transaction: { cost_cents: 5 } });
    expect(res.body.routing).toEqual({
      policy: {
        max_cost_cents: 10,
        deadline_ms: null,
        only: null,
        ignore: null,
        order: [d.serviceKey],
        allow_fallbacks: true,
        sort: null,
        min_success_rate: null,
        max_latency_p95_ms: null,
      },
      skipped: [{ service_key: d.serviceKey, reason: 'over_max_cost', detail: expect.stringContaining('50 cents'), price_cents: 50 }],
    });
    expect(dear.calls).toHaveLength(0);
    // What was held was the most it could cost under the bound.
    expect(res.body.payment).toMatchObject({ charged_cents: 5, held_base_units: '50000' });
  });

  it('answers 400 naming the field and the cheapest price on offer when every provider costs more', async () => {
    const cap = uniqueSlug('maxcost-none');
    const [a, b] = [await provider('a'), await provider('b')];
    await offer(cap, a, 30);
    const cheapest = await offer(cap, b, 12);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, routing: { maxCostCents: 5 } });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['routing.maxCostCents']);
    expect(res.body.errors[0].message).toContain(`the cheapest on offer is ${cheapest.serviceKey} at 12 cents`);
    expect(a.calls.length + b.calls.length).toBe(0);
  });
});

describe('deadline_ms', () => {
  it('ends a two-provider fallback that exhausts 300 ms with the attempts so far, the reason, and nothing charged', async () => {
    const cap = uniqueSlug('deadline');
    const [slow, hang] = [await provider('slow'), await provider('hang')];
    slow.setDefault({ status: 500 });
    hang.setDefault({ hang: true });
    const first = await offer(cap, slow, 5);
    const second = await offer(cap, hang, 7);
    const me = await registerPayingAgent(server);
    const before = await balance(me);
    const res = await run(me.key, { capability: cap, input: {}, routing: { deadline_ms: 300, order: [first.serviceKey, second.serviceKey] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'error', result: null, transaction: { cost_cents: 0 } });
    expect(res.body.attempts.map((a: any) => [a.service_key, a.reason, a.category])).toEqual([
      [first.serviceKey, 'http_500', 'provider_5xx'],
      [second.serviceKey, 'deadline_exceeded', 'deadline_exceeded'],
    ]);
    expect(res.body.error).toMatch(/^The call's deadline of 300 ms passed after 2 attempts: /);
    // The provider timeout is 10 s: the deadline, not it, ended the call.
    expect(res.body.transaction.latency_ms).toBeLessThan(5_000);
    expect(res.body.payment).toMatchObject({ charged_cents: 0 });
    expect(await balance(me)).toBe(before);
    // Running out of the caller's time is not the provider's fault.
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const stats = await server.app.services.db.service.findUniqueOrThrow({ where: { id: second.serviceId } });
    expect(stats).toMatchObject({ failureCount: 0, excusedCount: 1, consecutiveFailures: 0 });
  });

  it('passes over the providers not yet tried once it has passed', async () => {
    const cap = uniqueSlug('deadline-rest');
    const [slow, next] = [await provider('slow'), await provider('next')];
    slow.setDefault({ hang: true });
    const first = await offer(cap, slow);
    const second = await offer(cap, next, 3);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, routing: { deadline_ms: 1_000, order: [first.serviceKey] } });
    expect(res.body.status).toBe('error');
    expect(keys(res)).toEqual([first.serviceKey]);
    expect(res.body.attempts[0].reason).toBe('deadline_exceeded');
    expect(res.body.routing.skipped).toEqual([expect.objectContaining({ service_key: second.serviceKey, reason: 'deadline_exceeded' })]);
    expect(next.calls).toHaveLength(0);
  });
});

describe('only, ignore, order, allow_fallbacks and sort', () => {
  it('calls only the one provider named, and no other when fallbacks are off', async () => {
    const cap = uniqueSlug('only');
    const [failing, good] = [await provider('failing'), await provider('good')];
    failing.setDefault({ status: 500 });
    // The good one ranks first without a policy.
    await offer(cap, good, 0);
    const named = await offer(cap, failing, 90);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, routing: { only: [named.serviceKey], allow_fallbacks: false } });
    expect(res.body.status).toBe('error');
    expect(keys(res)).toEqual([named.serviceKey]);
    expect(good.calls).toHaveLength(0);
    // Named by its id, it is called however it ranks.
    failing.setDefault({});
    const byId = await run(me.key, { capability: cap, input: {}, routing: { only: [named.serviceId] } });
    expect(byId.body).toMatchObject({ status: 'success', provider: { service_key: named.serviceKey } });
    // Nobody named offers it: 400 on the field.
    const nobody = await run(me.key, { capability: cap, input: {}, routing: { only: ['svc_aaaaaaaaaaaaaaaaaaaaaaaa'] } });
    expectProblem(nobody, 400, 'validation_failed');
    expect(errorPaths(nobody)).toEqual(['routing.only']);
  });

  it('tries only the first provider left when fallbacks are off, and the next ones when on', async () => {
    const cap = uniqueSlug('fallbacks');
    const [bad, good] = [await provider('bad'), await provider('good')];
    bad.setDefault({ status: 503 });
    const b = await offer(cap, bad, 0);
    const g = await offer(cap, good, 30);
    const me = await registerPayingAgent(server);
    const off = await run(me.key, { capability: cap, input: {}, routing: { allowFallbacks: false } });
    expect(off.body.status).toBe('error');
    expect(keys(off)).toEqual([b.serviceKey]);
    const on = await run(me.key, { capability: cap, input: {}, routing: { allowFallbacks: true } });
    expect(keys(on)).toEqual([b.serviceKey, g.serviceKey]);
  });

  it('orders, ignores and sorts for one call', async () => {
    const cap = uniqueSlug('order');
    const ps = [await provider('p0'), await provider('p1'), await provider('p2')];
    // The dear one's reputation (95) puts it first in the balanced ranking; the free one is the cheapest.
    const [free, mid, dear] = [await offer(cap, ps[0], 0), await offer(cap, ps[1], 20), await offer(cap, ps[2], 60)];
    await besideServer(server).agent.update({ where: { id: dear.agent.agentId }, data: { reputation: 95 } });
    const me = await registerPayingAgent(server);
    const first = async (routing: unknown) => (await run(me.key, { capability: cap, input: {}, routing })).body.provider.service_key;
    expect(await first({})).toBe(dear.serviceKey);
    expect(await first({ sort: 'balanced' })).toBe(dear.serviceKey);
    expect(await first({ sort: 'reputation' })).toBe(dear.serviceKey);
    expect(await first({ sort: 'cost' })).toBe(free.serviceKey);
    expect(await first({ order: [mid.serviceKey] })).toBe(mid.serviceKey);
    expect(await first({ ignore: [dear.serviceKey] })).toBe(free.serviceKey);
  });

  it('refuses what cannot be read, each field named as the client spelled it', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, {
      capability: 'summarize',
      input: { text: 'x' },
      routing: { max_cost_cents: -1, deadlineMs: 0, min_success_rate: 2, only: [] },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['routing.deadlineMs', 'routing.max_cost_cents', 'routing.min_success_rate', 'routing.only'].sort());
    // A ranking that is not one of the five is refused by the input type.
    const sort = await run(me.key, { capability: 'summarize', input: { text: 'x' }, routing: { sort: 'cheapest' } });
    expectProblem(sort, 400, 'validation_failed');
    expect(errorPaths(sort)).toEqual(['routing.sort']);
    const chosen = await run(me.key, { capability: 'summarize', input: { text: 'x' }, mode: 'chosen', provider: 'marketplace', routing: { sort: 'cost' } });
    expectProblem(chosen, 400, 'validation_failed');
    expect(errorPaths(chosen)).toEqual(['routing.sort']);
  });
});

describe('minimums of measured quality', () => {
  it('skips providers below min_success_rate or without a p95 under max_latency_p95_ms, with the reason', async () => {
    const cap = uniqueSlug('quality');
    const [proven, fresh] = [await provider('proven'), await provider('fresh')];
    const p = await offer(cap, proven, 10);
    const f = await offer(cap, fresh, 0);
    await besideServer(server).service.update({
      where: { id: p.serviceId },
      data: { successCount: 50, failureCount: 0, latencyP50Ms: 30, latencyP95Ms: 80, latencyBuckets: [0, 0, 0, 25, 25, 0, 0, 0, 0, 0, 0, 0] },
    });
    const me = await registerPayingAgent(server);
    const rate = await run(me.key, { capability: cap, input: {}, routing: { min_success_rate: 0.9 } });
    expect(rate.body.provider.service_key).toBe(p.serviceKey);
    expect(rate.body.routing.skipped).toEqual([
      expect.objectContaining({ service_key: f.serviceKey, reason: 'below_policy', detail: expect.stringContaining('0.5') }),
    ]);
    const latency = await run(me.key, { capability: cap, input: {}, routing: { max_latency_p95_ms: 100 } });
    expect(latency.body.provider.service_key).toBe(p.serviceKey);
    expect(latency.body.routing.skipped).toEqual([
      expect.objectContaining({ service_key: f.serviceKey, reason: 'below_policy', detail: expect.stringContaining('no p95') }),
    ]);
    // Nobody meets it: 400 naming the field and why each was passed over.
    const none = await run(me.key, { capability: cap, input: {}, routing: { max_latency_p95_ms: 10 } });
    expectProblem(none, 400, 'validation_failed');
    expect(errorPaths(none)).toEqual(['routing.max_latency_p95_ms']);
    expect(none.body.errors[0].message).toContain('p95 latency 80 ms');
  });
});

describe('every provider cooling down', () => {
  async function coolingCapability(ms: number) {
    const cap = uniqueSlug('cooling');
    const p = await provider('cooling');
    const svc = await offer(cap, p, 0);
    await besideServer(server).service.update({ where: { id: svc.serviceId }, data: { consecutiveFailures: 3, cooldownUntil: new Date(Date.now() + ms) } });
    return { cap, p, svc };
  }

  it('waits for the first one back when that is within the deadline, and succeeds', async () => {
    const { cap, p, svc } = await coolingCapability(600);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, routing: { deadline_ms: 8_000 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', provider: { service_key: svc.serviceKey } });
    expect(p.calls).toHaveLength(1);
  });

  it('answers 503 with Retry-After at the earliest cooldown end when it is past the deadline, or there is none', async () => {
    const { cap, p } = await coolingCapability(30_000);
    const me = await registerAgent(server);
    for (const routing of [{ deadline_ms: 1_000 }, undefined]) {
      const res = await run(me.key, { capability: cap, input: {}, ...(routing ? { routing } : {}) });
      expectProblem(res, 503, 'service_unavailable');
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(28);
      expect(retry).toBeLessThanOrEqual(30);
      expect(res.body).toMatchObject({ retry_after_seconds: retry, cooldown_until: expect.any(String) });
    }
    expect(p.calls).toHaveLength(0);
  });
});

describe('failure categories', () => {
  it('reads each failure as a category a program acts on', async () => {
    const cap = uniqueSlug('categories');
    const ps = [await provider('404'), await provider('garbage'), await provider('500')];
    ps[0].setDefault({ status: 404 });
    ps[1].setDefault({ body: 'not json' });
    ps[2].setDefault({ status: 500 });
    const offered = [await offer(cap, ps[0], 0), await offer(cap, ps[1], 10), await offer(cap, ps[2], 20)];
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.body.attempts.map((a: any) => [a.service_key, a.reason, a.category])).toEqual([
      [offered[0].serviceKey, 'http_404', 'provider_4xx'],
      [offered[1].serviceKey, 'invalid_json', 'bad_output'],
      [offered[2].serviceKey, 'http_500', 'provider_5xx'],
    ]);
    // Nobody listening: a connection error.
    const closed = await provider('closed');
    const goneCap = uniqueSlug('gone');
    await offer(goneCap, closed);
    await closed.close();
    const refused = await run(me.key, { capability: goneCap, input: {} });
    expect(refused.body.attempts[0]).toMatchObject({ reason: 'connection', category: 'connect_error' });
  });

  it("reads a provider's 429 as provider_rate_limited with its Retry-After, cools it no longer, and leaves the marketplace's rate headers alone", async () => {
    // Rate limits on here: the provider's 429 must leave the marketplace's own rate headers as they are.
    const limited = await startServer({ env: { OUTBOUND_ALLOW_PRIVATE: '1' } });
    try {
      const cap = uniqueSlug('throttled');
      const p = await provider('throttled');
      p.setDefault({ status: 429, headers: { 'Retry-After': '2' } });
      const owner = await registerAgent(limited);
      const serviceId = (await registerService(limited, owner.key, { endpoint: p.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 }))
        .service_id;
      const me = await registerAgent(limited);
      const res = await api(limited)('POST', '/execute', { key: me.key, body: { capability: cap, input: {} } });
      expect(res.status).toBe(200);
      expect(res.body.attempts[0]).toMatchObject({ reason: 'http_429', category: 'provider_rate_limited', status_code: 429, retry_after_seconds: 2 });
      // The answer's rate headers are the marketplace's execute bucket (100 a minute), and it sends no Retry-After.
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
      expect(res.headers.get('retry-after')).toBeNull();
      await limited.app.services.providerStats.settled();
      await limited.app.services.providerStats.foldOnce();
      const stats = await limited.app.services.db.service.findUniqueOrThrow({ where: { id: serviceId } });
      const failedAt = stats.lastFailureAt!.getTime();
      expect(stats.cooldownUntil!.getTime()).toBeGreaterThan(failedAt);
      expect(stats.cooldownUntil!.getTime() - failedAt).toBeLessThanOrEqual(2_000);
      expect(stats).toMatchObject({ failureCount: 1, consecutiveFailures: 0 });
    } finally {
      await limited.close();
    }
  });

  it("counts a 4xx refusing the caller's input apart from the provider's failures", async () => {
    const cap = uniqueSlug('refuses');
    const p = await provider('refuses');
    p.setDefault({ status: 422 });
    const svc = await offer(cap, p, 5);
    const me = await registerPayingAgent(server);
    for (let i = 0; i < 4; i++) {
      const res = await run(me.key, { capability: cap, input: { bad: i } });
      expect(res.body.attempts[0]).toMatchObject({ reason: 'http_422', category: 'provider_4xx' });
    }
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const stats = await server.app.services.db.service.findUniqueOrThrow({ where: { id: svc.serviceId } });
    // Four refusals in a row neither count as failures nor start a cooldown.
    expect(stats).toMatchObject({ failureCount: 0, excusedCount: 4, consecutiveFailures: 0, cooldownUntil: null, reputationFailureCount: 0 });
  });
});

describe('on every surface', () => {
  async function twoPriced() {
    const cap = uniqueSlug('surfaces');
    const [dear, cheap] = [await provider('dear'), await provider('cheap')];
    const d = await offer(cap, dear, 50);
    const c = await offer(cap, cheap, 5);
    return { cap, d, c, dear };
  }

  it('GraphQL reads the policy as an input type', async () => {
    const { cap, d, c, dear } = await twoPriced();
    const me = await registerPayingAgent(server);
    const res = await gql(
      server,
      `mutation($input: ExecuteInput!) { execute(input: $input) { status provider { serviceKey } attempts { category } routing { policy { maxCostCents order } skipped { serviceKey reason } } } }`,
      { input: { capability: cap, input: {}, routing: { maxCostCents: 10, order: [d.serviceKey] } } },
      me.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.execute).toEqual({
      status: 'success',
      provider: { serviceKey: c.serviceKey },
      attempts: [{ category: null }],
      routing: { policy: { maxCostCents: 10, order: [d.serviceKey] }, skipped: [{ serviceKey: d.serviceKey, reason: 'over_max_cost' }] },
    });
    expect(dear.calls).toHaveLength(0);
  });

  it("MCP's execute tool takes it as an argument", async () => {
    const { cap, d, c, dear } = await twoPriced();
    const me = await registerPayingAgent(server);
    const client = new Client({ name: 'routing-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${me.key}` } } }));
    try {
      const result = (await client.callTool({ name: 'execute', arguments: { capability: cap, input: {}, routing: { max_cost_cents: 10 } } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: 'success',
        provider: { service_key: c.serviceKey },
        routing: { skipped: [{ service_key: d.serviceKey, reason: 'over_max_cost' }] },
      });
    } finally {
      await client.close();
    }
    expect(dear.calls).toHaveLength(0);
  });

  it('A2A reads it from the data part', async () => {
    const { cap, d, c, dear } = await twoPriced();
    const me = await registerPayingAgent(server);
    const res = await http(server.url, 'POST', '/api/a2a', {
      key: me.key,
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { capability: cap, input: {}, routing: { max_cost_cents: 10 } } }] } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeUndefined();
    expect(JSON.stringify(res.body.result)).toContain(c.serviceKey);
    expect(JSON.stringify(res.body.result)).toContain('over_max_cost');
    expect(JSON.stringify(res.body.result)).toContain(d.serviceKey);
    expect(dear.calls).toHaveLength(0);
  });
});

/** The content type and Server-Timing of the HTTP answer that carried an MCP tool call, made by the SDK's client. */
async function mcpToolCallAnswer(key: string, name: string, args: Record<string, unknown>): Promise<{ type: string; timing: string | null }> {
  const seen: { type: string; timing: string | null }[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      if (String(init?.body ?? '').includes('"tools/call"'))
        seen.push({ type: res.headers.get('content-type') ?? '', timing: res.headers.get('server-timing') });
      return res;
    },
  });
  const client = new Client({ name: 'timing-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
  } finally {
    await client.close();
  }
  expect(seen).toHaveLength(1);
  return seen[0];
}

describe('Server-Timing', () => {
  /** A Server-Timing value's metrics: name, description and duration. */
  const metrics = (value: string | null) =>
    (value ?? '').split(',').map((m) => {
      const [name, ...params] = m.trim().split(';');
      const param = (p: string) => params.find((x) => x.startsWith(`${p}=`))?.slice(p.length + 1);
      return { name, desc: param('desc')?.replace(/"/g, ''), dur: Number(param('dur')) };
    });

  it("gives execute's time at each provider, the marketplace's own and the total; a replay gives its own only", async () => {
    const cap = uniqueSlug('timing');
    const [bad, good] = [await provider('bad'), await provider('good')];
    bad.setDefault({ status: 500 });
    good.setDefault({ delayMs: 30 });
    const b = await offer(cap, bad, 0);
    const g = await offer(cap, good, 10);
    const me = await registerPayingAgent(server);
    const body = { capability: cap, input: {} };
    const res = await call('POST', '/execute', { key: me.key, body, headers: { 'Idempotency-Key': `timing-${cap}` } });
    const timing = metrics(res.headers.get('server-timing'));
    expect(timing.map((m) => [m.name, m.desc])).toEqual([
      ['provider', b.serviceKey],
      ['provider', g.serviceKey],
      ['marketplace', undefined],
      ['total', undefined],
    ]);
    expect(timing.slice(0, 2).map((m) => m.dur)).toEqual(res.body.attempts.map((a: any) => a.latency_ms));
    const [p1, p2, own, total] = timing.map((m) => m.dur);
    expect(p2).toBeGreaterThanOrEqual(30);
    expect(own).toBeGreaterThanOrEqual(0);
    expect(Math.abs(total - (p1 + p2 + own))).toBeLessThan(0.5);
    const replay = await call('POST', '/execute', { key: me.key, body, headers: { 'Idempotency-Key': `timing-${cap}` } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(metrics(replay.headers.get('server-timing')).map((m) => m.name)).toEqual(['marketplace', 'total']);
  });

  it("gives execute's time at its provider over GraphQL and A2A too; MCP's answer is a stream whose headers come first", async () => {
    const cap = uniqueSlug('timing-surfaces');
    const p = await provider('timed');
    const o = await offer(cap, p, 0);
    const me = await registerAgent(server);
    const answers = {
      graphql: await gql(server, 'mutation($i: ExecuteInput!) { execute(input: $i) { status } }', { i: { capability: cap, input: {} } }, me.key),
      mcp: await mcpToolCallAnswer(me.key, 'execute', { capability: cap, input: {} }),
      a2a: await http(server.url, 'POST', '/api/a2a', {
        key: me.key,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { capability: cap, input: {} } }] } },
        },
      }),
    };
    const { mcp, ...withHeadersAfter } = answers;
    expect(mcp.type).toMatch(/text\/event-stream/);
    expect(metrics(mcp.timing).map((m) => m.name)).toEqual(['marketplace', 'total']);
    for (const [surface, res] of Object.entries(withHeadersAfter)) {
      const timing = metrics(res.headers.get('server-timing')).map((m) => [m.name, m.desc]);
      expect({ surface, timing }).toEqual({
        surface,
        timing: [
          ['provider', o.serviceKey],
          ['marketplace', undefined],
          ['total', undefined],
        ],
      });
    }
    expect(p.calls.filter((c) => c.method === 'POST')).toHaveLength(3);
  });

  it('is on every answer: REST, GraphQL, MCP, A2A, a problem, the console', async () => {
    const me = await registerAgent(server);
    const answers = [
      await call('GET', '/health'),
      await call('GET', '/agents/me', { key: me.key }),
      await call('GET', '/agents/me'),
      await gql(server, '{ tiers { name } }', undefined, me.key),
      await http(server.url, 'POST', '/mcp', {
        key: me.key,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream' },
      }),
      await http(server.url, 'POST', '/api/a2a', { key: me.key, body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } } }),
      await http(server.url, 'GET', '/.well-known/jwks.json'),
    ];
    for (const [i, res] of answers.entries()) {
      const names = metrics(res.headers.get('server-timing')).map((m) => m.name);
      expect({ i, status: res.status, names }).toEqual({ i, status: res.status, names: ['marketplace', 'total'] });
    }
  });
});
