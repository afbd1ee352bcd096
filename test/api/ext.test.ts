// The third-party agent gateway: external agents and their agent cards, the capability search, gateway
// events, passports and vault tokens (verified with jose against the published JWKS), delegations to an
// instance on loopback HTTPS, and the tool hub's conversions.
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { FakeClock } from '../support/clock';
import { eventually } from '../support/expect';
import { api, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';

// jose is ESM-only: loaded with a dynamic import.
let jose: typeof import('jose', { with: { 'resolution-mode': 'import' } });
let server: TestServer;
let call: ReturnType<typeof api>;
const clock = new FakeClock();
let instance: HttpsTestServer;
/** What the instance received, and how it answers delegations. */
const received: { path: string; headers: Record<string, unknown>; body: any }[] = [];
let answerWith: (body: any) => { status: number; body?: unknown } = () => ({ status: 200, body: { result: { ok: true } } });

const card = (url: string) => ({
  name: 'Weather agent',
  description: 'Knows the weather',
  url: `${url}/a2a`,
  version: '1.2.0',
  protocolVersion: '0.3.0',
  capabilities: {},
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'weather-forecast', name: 'Forecast', description: 'A forecast', tags: ['weather'] }],
});

beforeAll(async () => {
  assertTestCaTrusted();
  jose = await import('jose');
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_POLL_MS: '100' }, clock });
  call = api(server);
  instance = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(instance.url)));
        return;
      }
      if (req.method === 'GET' && req.url === '/broken/card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hello: 'world' }));
        return;
      }
      const body = text ? JSON.parse(text) : undefined;
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const answer = answerWith(body);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
});

afterAll(async () => {
  await server?.close();
  await instance?.close();
});

async function jwks() {
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  return jose.createLocalJWKSet(await res.json());
}

/** Flips one character of a JWS segment (0 header, 1 payload, 2 signature). */
function tamper(jws: string, segment: number): string {
  const parts = jws.split('.');
  const s = parts[segment];
  const i = Math.floor(s.length / 2);
  parts[segment] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  return parts.join('.');
}

describe('external agents', () => {
  it('registers an external agent (201 registered, secret once) and lists it in /ammc/agents with its source', async () => {
    const me = await registerAgent(server);
    const capability = uniqueSlug('ext-cap');
    const res = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: `${instance.url}/agents/one`, capabilities: [capability] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      registered: true,
      secret: expect.stringMatching(/^whsec_/),
      external_agent: { instance_url: `${instance.url}/agents/one`, capabilities: [capability], status: 'registered', source: 'external', reputation: 20 },
    });
    const again = await call('POST', '/ext/agents/register', { key: me.key, body: { instanceUrl: `${instance.url}/agents/one`, capabilities: [capability] } });
    expect(again.status).toBe(409);
    const listed = await call('GET', `/ammc/agents?capability=${capability}`);
    expect(listed.status).toBe(200);
    expect(listed.body.agents).toEqual([expect.objectContaining({ agent_id: res.body.external_agent.external_agent_id, source: 'external' })]);
  });

  it('refuses bad input naming the field', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: 'http://example.com', capabilities: ['Not A Slug'] } });
    expect(res.status).toBe(400);
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['instance_url', 'capabilities.0']));
  });

  it('connects an instance: fetches its agent card over HTTPS and records what it found', async () => {
    const me = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: instance.url, capabilities: ['weather-forecast'] } });
    const res = await call('POST', '/ext/gateway/connect', { key: me.key, body: { external_agent_id: reg.body.external_agent.external_agent_id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      connected: true,
      reason: null,
      card: { name: 'Weather agent', endpoint: `${instance.url}/a2a`, protocolVersion: '0.3.0', skills: [{ id: 'weather-forecast' }] },
      external_agent: { status: 'connected', connected_at: expect.any(String) },
    });
    // A card that is not an agent card: not connected, and why.
    const broken = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: `${instance.url}/broken/card.json`, capabilities: ['x'] } });
    const bad = await call('POST', '/ext/gateway/connect', { key: me.key, body: { external_agent_id: broken.body.external_agent.external_agent_id } });
    expect(bad.body).toMatchObject({ connected: false, reason: 'the agent card has no name', external_agent: { status: 'registered' } });
    // Another agent's external agent is not found.
    const other = await registerAgent(server);
    expect(
      (await call('POST', '/ext/gateway/connect', { key: other.key, body: { external_agent_id: reg.body.external_agent.external_agent_id } })).status,
    ).toBe(404);
  });

  it('refuses a private address without OUTBOUND_ALLOW_PRIVATE', async () => {
    const strict = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    try {
      const me = await registerAgent(strict);
      const res = await api(strict)('POST', '/ext/gateway/connect', { key: me.key, body: { instance_url: instance.url } });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.path ?? res.body.detail).toMatch(/instance_url/);
    } finally {
      await strict.close();
    }
  });

  it('polls gateway events in order after the cursor passed back (concurrent polls without one read the same), and re-reads after a cursor', async () => {
    const me = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: instance.url, capabilities: ['weather-forecast'] } });
    const id = reg.body.external_agent.external_agent_id;
    for (let i = 0; i < 6; i++) await call('POST', '/ext/gateway/connect', { key: me.key, body: { external_agent_id: id } });
    const polls = await Promise.all([1, 2, 3].map(() => call('GET', '/ext/gateway/events?limit=2', { key: me.key })));
    for (const p of polls) expect(p.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    for (const p of polls) expect(p.body.events.map((e: { type: string }) => e.type)).toEqual(['gateway.connected', 'gateway.connected']);
    const seqs: number[] = [];
    for (let page = polls[0].body; page.events.length;) {
      page = (await call('GET', `/ext/gateway/events?after=${page.cursor}&limit=2`, { key: me.key })).body;
      seqs.push(...page.events.map((e: { seq: number }) => e.seq));
    }
    expect(seqs).toEqual([3, 4, 5, 6]);
    expect((await call('GET', '/ext/gateway/events', { key: me.key })).body).toMatchObject({ events: [], cursor: 6, has_more: false });
    const reread = await call('GET', '/ext/gateway/events?after=4', { key: me.key });
    expect(reread.body.events.map((e: { seq: number }) => e.seq)).toEqual([5, 6]);
  });
});

describe('capabilities', () => {
  it('registers a capability and finds it beside the catalog and the services, each saying where it lives', async () => {
    const me = await registerAgent(server);
    const capability = uniqueSlug('find-me');
    await registerService(server, me.key, { capabilities: [capability] });
    const res = await call('POST', '/ext/capabilities/register', {
      key: me.key,
      body: {
        name: capability,
        description: 'Finds things',
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
        endpoint: `${instance.url}/find`,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ registered: true, capability: { name: capability, endpoint: `${instance.url}/find` } });
    const found = await call('GET', `/ext/capabilities/search?capability=${capability}`, { key: me.key });
    expect(found.status).toBe(200);
    // A service's capability joins the catalog: it is found there too.
    expect(found.body.total).toBe(3);
    expect(found.body.capabilities).toEqual([
      expect.objectContaining({ source: 'catalog', kind: 'catalog', id: capability }),
      expect.objectContaining({ source: 'marketplace', kind: 'service', endpoint: `${server.url}/api/v1/execute` }),
      expect.objectContaining({
        source: 'external',
        kind: 'external_capability',
        endpoint: `${instance.url}/find`,
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      }),
    ]);
    const catalog = await call('GET', '/ext/capabilities/search?source=catalog&q=summar', { key: me.key });
    expect(catalog.body.capabilities.every((c: { source: string }) => c.source === 'catalog')).toBe(true);
    expect(catalog.body.capabilities.map((c: { capability: string }) => c.capability)).toContain('summarize');
  });
});

describe('passports', () => {
  it('signs a passport that jose verifies against the JWKS, and refuses it with one byte changed', async () => {
    const me = await registerAgent(server);
    const subject = await registerAgent(server);
    const res = await call('GET', `/ext/reputation/passport/${subject.agentId}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.passport).toMatchObject({ agent_id: subject.agentId, name: subject.name, reputation: 20, tier: 'newcomer', issuer: server.url });
    const keys = await jwks();
    const { payload, protectedHeader } = await jose.jwtVerify(res.body.signature, keys, { issuer: server.url, currentDate: clock.now() });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'passport+jwt' });
    expect(payload.passport).toEqual(res.body.passport);
    for (const segment of [0, 1, 2]) await expect(jose.compactVerify(tamper(res.body.signature, segment), keys)).rejects.toThrow();
    // The marketplace's own verification (no key needed).
    expect((await call('POST', '/ext/reputation/verify', { body: { signature: res.body.signature, passport: res.body.passport } })).body).toMatchObject({
      valid: true,
      reason: null,
    });
    expect((await call('POST', '/ext/reputation/verify', { body: { signature: tamper(res.body.signature, 2) } })).body).toMatchObject({
      valid: false,
      reason: 'bad_signature',
    });
    expect(
      (await call('POST', '/ext/reputation/verify', { body: { signature: res.body.signature, passport: { ...res.body.passport, reputation: 99 } } })).body,
    ).toMatchObject({ valid: false, reason: 'mismatch' });
    expect((await call('GET', '/ext/reputation/passport/00000000-0000-4000-8000-000000000000', { key: me.key })).status).toBe(404);
  });

  it('refuses an expired passport', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', `/ext/reputation/passport/${me.agentId}`, { key: me.key });
    clock.advance(25 * 3600_000);
    try {
      expect((await call('POST', '/ext/reputation/verify', { body: { signature: res.body.signature } })).body).toMatchObject({
        valid: false,
        reason: 'expired',
      });
      await expect(jose.jwtVerify(res.body.signature, await jwks(), { currentDate: clock.now() })).rejects.toThrow(/exp/);
    } finally {
      clock.advance(-25 * 3600_000);
    }
  });
});

describe('vault tokens', () => {
  it('issues a scoped token jose verifies, and refuses it tampered, expired or revoked', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/ext/vault/token', {
      key: me.key,
      body: { scopes: ['execute', 'capability:summarize'], audience: 'https://agent.example', expires_in: 600 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token_id: expect.stringMatching(/^vt_/), scopes: ['execute', 'capability:summarize'], audience: 'https://agent.example' });
    const { payload } = await jose.jwtVerify(res.body.token, await jwks(), { audience: 'https://agent.example', issuer: server.url, currentDate: clock.now() });
    expect(payload).toMatchObject({ sub: me.agentId, scope: 'execute capability:summarize', jti: res.body.token_id });
    const verify = (body: Record<string, unknown>) => call('POST', '/ext/vault/verify', { key: me.key, body });
    expect((await verify({ token: res.body.token, scope: 'capability:summarize' })).body).toMatchObject({ valid: true, claims: { jti: res.body.token_id } });
    expect((await verify({ token: res.body.token, scope: 'capability:translate' })).body).toMatchObject({ valid: false, reason: 'scope' });
    expect((await verify({ token: res.body.token, audience: 'https://other.example' })).body).toMatchObject({ valid: false, reason: 'wrong_audience' });
    expect((await verify({ token: tamper(res.body.token, 1) })).body.valid).toBe(false);
    clock.advance(601_000);
    try {
      expect((await verify({ token: res.body.token })).body).toMatchObject({ valid: false, reason: 'expired' });
    } finally {
      clock.advance(-601_000);
    }
    const other = await registerAgent(server);
    expect((await call('DELETE', `/ext/vault/tokens/${res.body.token_id}`, { key: other.key })).status).toBe(404);
    const revoked = await call('DELETE', `/ext/vault/tokens/${res.body.token_id}`, { key: me.key });
    expect(revoked.body).toMatchObject({ revoked: true, token_id: res.body.token_id });
    expect((await verify({ token: res.body.token })).body).toMatchObject({ valid: false, reason: 'revoked' });
  });
});

describe('delegations', () => {
  it('delivers a signed delegation to the instance and records its answer as an execution, once', async () => {
    const owner = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', {
      key: owner.key,
      body: { instance_url: `${instance.url}/inbox`, capabilities: ['weather-forecast'] },
    });
    const external = reg.body.external_agent.external_agent_id;
    const me = await registerAgent(server);
    answerWith = (body) => ({ status: 200, body: { result: { forecast: 'sunny', city: body.data.input.city } } });
    const res = await call('POST', '/ext/swarm/delegate', {
      key: me.key,
      body: { external_agent_id: external, capability: 'weather-forecast', input: { city: 'Lyon' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delegated: true, status: 'pending', capability: 'weather-forecast', external_agent_id: external });
    const d = (
      await eventually(
        () => call('GET', `/ext/swarm/delegations/${res.body.delegation_id}`, { key: me.key }),
        (r) => r.body.status !== 'pending',
        10_000,
      )
    ).body;
    expect(d).toMatchObject({ status: 'answered', result: { forecast: 'sunny', city: 'Lyon' } });
    const delivery = received.find((r) => r.path === '/inbox' && r.body?.data?.delegation_id === res.body.delegation_id)!;
    expect(delivery.body.type).toBe('ext.delegation.requested');
    expect(String(delivery.headers['webhook-signature'])).toMatch(/v1a,.+ v1,|v1,.+ v1a,/);
    const executions = await call('GET', '/agents/me/executions', { key: me.key });
    expect(executions.body.executions).toEqual([
      expect.objectContaining({
        execution_id: res.body.execution_id,
        status: 'success',
        capability: 'weather-forecast',
        result: { forecast: 'sunny', city: 'Lyon' },
      }),
    ]);
    // A second answer is refused; the owner saw both events.
    expect((await call('POST', `/ext/swarm/delegations/${res.body.delegation_id}/answer`, { key: owner.key, body: { result: 1 } })).status).toBe(409);
    const events = await call('GET', '/ext/gateway/events', { key: owner.key });
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(['delegation.requested', 'delegation.answered']);
  });

  it('takes an answer posted later by the owner, and refuses a capability the agent does not declare', async () => {
    const owner = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', { key: owner.key, body: { instance_url: `${instance.url}/later`, capabilities: ['slow-thing'] } });
    const me = await registerAgent(server);
    answerWith = () => ({ status: 202 });
    const bad = await call('POST', '/ext/swarm/delegate', {
      key: me.key,
      body: { external_agent_id: reg.body.external_agent.external_agent_id, capability: 'other-thing' },
    });
    expect(bad.status).toBe(400);
    const res = await call('POST', '/ext/swarm/delegate', {
      key: me.key,
      body: { externalAgentId: reg.body.external_agent.external_agent_id, capability: 'slow-thing' },
    });
    expect((await call('POST', `/ext/swarm/delegations/${res.body.delegation_id}/answer`, { key: me.key, body: { result: 1 } })).status).toBe(404);
    const answered = await call('POST', `/ext/swarm/delegations/${res.body.delegation_id}/answer`, { key: owner.key, body: { error: 'could not do it' } });
    expect(answered.body).toMatchObject({ status: 'failed', error: 'could not do it' });
    const executions = await call('GET', '/agents/me/executions', { key: me.key });
    expect(executions.body.executions).toEqual([expect.objectContaining({ execution_id: res.body.execution_id, status: 'error', error: 'could not do it' })]);
  });
});

describe("an external agent's reputation", () => {
  it('rises only for answers to other families’ delegations, at most 10 a day', async () => {
    const owner = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', { key: owner.key, body: { instance_url: `${instance.url}/farm`, capabilities: ['farm-thing'] } });
    const external = reg.body.external_agent.external_agent_id;
    const reputation = async () => (await server.app.services.db.externalAgent.findUniqueOrThrow({ where: { id: external } })).reputation;
    answerWith = () => ({ status: 202 });
    /** A delegation by `from`, answered by the owner. */
    const answered = async (from: { key: string }) => {
      const d = await call('POST', '/ext/swarm/delegate', { key: from.key, body: { external_agent_id: external, capability: 'farm-thing' } });
      expect(d.status).toBe(200);
      const a = await call('POST', `/ext/swarm/delegations/${d.body.delegation_id}/answer`, { key: owner.key, body: { result: { ok: true } } });
      expect(a.body.status).toBe('answered');
    };
    // The owner, and a sub-agent of its, delegating to its own external agent earn it nothing.
    await answered(owner);
    const sub = await call('POST', `/agents/${owner.agentId}/sub-agents`, {
      key: owner.key,
      body: { name: uniqueSlug('ext-sub'), description: 'Mine', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    await answered({ key: sub.body.master_key });
    expect(await reputation()).toBe(20);
    // Another agent's delegations earn a point each, up to the day's cap (the owner's own answers count towards it).
    const stranger = await registerAgent(server);
    for (let i = 0; i < 10; i++) await answered(stranger);
    expect(await reputation()).toBe(28);
    clock.advance(86_400_000 + 1);
    await answered(stranger);
    expect(await reputation()).toBe(29);
  });
});

describe('hub', () => {
  const schema = { type: 'object', properties: { city: { type: 'string', description: 'Where' }, days: { type: 'integer' } }, required: ['city'] };
  const tools = {
    mcp: { name: 'get_forecast', description: 'The weather for a city', inputSchema: schema },
    openapi: {
      operationId: 'get_forecast',
      description: 'The weather for a city',
      requestBody: { required: true, content: { 'application/json': { schema } } },
    },
    a2a: { id: 'get_forecast', name: 'get_forecast', description: 'The weather for a city', tags: [], inputSchema: schema },
    skill_md: '',
  };

  it('converts every pair of formats and back, keeping the name, description and input schema', async () => {
    const me = await registerAgent(server);
    const convert = (from: string, to: string, tool: unknown) => call('POST', '/ext/hub/convert', { key: me.key, body: { from, to, tool } });
    tools.skill_md = (await convert('mcp', 'skill_md', tools.mcp)).body.tool;
    expect(tools.skill_md).toMatch(/^---\nname: get-forecast\n/);
    const formats = Object.keys(tools) as (keyof typeof tools)[];
    for (const from of formats) {
      for (const to of formats) {
        if (from === to) continue;
        const there = await convert(from, to, tools[from]);
        expect(there.status).toBe(200);
        const back = await convert(to, from, there.body.tool);
        expect(back.body).toMatchObject({ converted: true, name: 'get_forecast', description: 'The weather for a city', input_schema: schema });
      }
    }
    const bad = await convert('mcp', 'nowhere', tools.mcp);
    expect(bad.status).toBe(400);
  });

  it('imports a tool as a draft skill and as a service', async () => {
    const me = await registerAgent(server);
    const skill = await call('POST', '/ext/hub/import', { key: me.key, body: { format: 'mcp', tool: { ...tools.mcp, name: `forecast_${Date.now()}` } } });
    expect(skill.status).toBe(201);
    expect(skill.body).toMatchObject({ imported: true, kind: 'skill', id: expect.any(String) });
    const service = await call('POST', '/ext/hub/import', {
      key: me.key,
      body: { format: 'a2a', tool: { ...tools.a2a, id: `svc_${Date.now()}` }, as: 'service', endpoint: `${instance.url}/svc` },
    });
    expect(service.status).toBe(201);
    expect(service.body).toMatchObject({
      imported: true,
      kind: 'service',
      service_key: expect.stringMatching(/^svc_/),
      signing_secret: expect.stringMatching(/^whsec_/),
    });
  });
});
