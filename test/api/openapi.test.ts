// The OpenAPI document: valid OpenAPI 3.1, built from the route tables, and true to what the server answers.
import fs from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import path from 'node:path';
import { routes } from '../../rest/routes';
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';
import { capabilitySchemaName } from '../../protocols/openapi';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'O'.repeat(40)}`;
let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', ADMIN_KEY } });
  doc = (await api(server)('GET', '/openapi.json')).body;
});
afterAll(() => server.close());

it('is a valid OpenAPI 3.1 document, version 2.0.0', async () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.version).toBe('2.0.0');
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(doc);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
});

it('lists every route of the route tables with its success and error responses', () => {
  for (const route of routes) {
    for (const path of Array.isArray(route.path) ? route.path : [route.path]) {
      const op = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect(op).toBeDefined();
      expect(op.responses[String(route.status)]).toBeDefined();
      expect(op.responses['500'].content['application/problem+json']).toBeDefined();
      if (route.auth !== 'none') expect(op.responses['401']).toBeDefined();
      if (route.bucket) expect(op.responses['429'].headers['Retry-After']).toBeDefined();
    }
  }
});

it('gives every operation its own operationId', () => {
  const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId));
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
});

it('derives the request schema from the input type and the response schema from the aliases', async () => {
  const register = doc.paths['/agents/register'].post;
  const body = register.requestBody.content['application/json'].schema;
  expect(body.required.sort()).toEqual(['description', 'name', 'ownerEmail']);
  expect(body.additionalProperties).toBe(false);
  const created = register.responses['201'].content['application/json'].schema;
  expect(Object.keys(created.properties).sort()).toEqual(['agent_id', 'agent_key', 'master_key', 'name', 'reputation', 'tier']);
  expect(created.properties.tier.enum).toEqual(expect.arrayContaining(['newcomer', 'star']));

  // What the server answers has exactly the documented properties.
  const me = await registerAgent(server);
  const res = await api(server)('GET', '/agents/me', { key: me.key });
  const schema = doc.paths['/agents/me'].get.responses['200'].content['application/json'].schema;
  expect(Object.keys(res.body).sort()).toEqual(Object.keys(schema.properties).sort());
  expect(schema.required.sort()).toEqual(Object.keys(schema.properties).sort());
});

it('documents query parameters with their types', () => {
  const uptime = doc.paths['/uptime'].get;
  expect(uptime.parameters.filter((p: any) => p.in === 'query')).toEqual([
    expect.objectContaining({ name: 'days', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 90 } }),
  ]);
});

it('documents each body field and query parameter under one spelling and says the other is accepted', () => {
  const register = doc.paths['/services/register'].post.requestBody.content['application/json'].schema;
  expect(register.required.sort()).toEqual(['capabilities', 'description', 'endpoint', 'name', 'pricing_model']);
  expect(register.properties.pricing_model.description).toMatch(/Also accepted as `pricingModel`/);
  expect(register.properties.costPerCall.description).toMatch(/Also accepted as `cost_per_call`/);
  expect(register.properties.name.description ?? '').not.toMatch(/Also accepted/);
  const entries = doc.paths['/memory/stores/{id}/entries'].put.requestBody.content['application/json'].schema;
  expect(entries.properties.entries.items.properties.ttl_seconds.description).toMatch(/Also accepted as `ttlSeconds`/);
  const services = doc.paths['/services'].get.parameters.find((p: any) => p.name === 'min_reputation');
  expect(services.description).toMatch(/Also accepted as `minReputation`/);
  expect(doc.info.description).toMatch(/both spellings/);
});

it('covers every REST operation of the specification', () => {
  const spec = fs
    .readFileSync(path.join(__dirname, '../fixtures/spec-rest-paths.txt'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  expect(spec.length).toBe(113);
  const documented = (line: string) => {
    const [method, p] = line.split(' ');
    return doc.paths[p.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()] !== undefined;
  };
  // Every area has landed: nothing of the specification is missing.
  expect(spec.filter((l) => !documented(l))).toEqual([]);
});

describe('what the server enforces, the document says', () => {
  const BIG = 1_000_000_000;
  /** The bound a refusal states, as JSON Schema keywords (undefined when the message states none we read). */
  function boundOf(message: string): Record<string, unknown> | undefined {
    let m = /^must be at most (\d+) characters$/.exec(message);
    if (m) return { maxLength: Number(m[1]) };
    m = /^must be at least (\d+) characters$/.exec(message);
    if (m) return { minLength: Number(m[1]) };
    m = /^must be one of (.+)$/.exec(message);
    if (m) return { enum: m[1].split(', ').sort() };
    m = /^must be an integer from (-?\d+) to (-?\d+)$/.exec(message);
    if (m) return { minimum: Number(m[1]), maximum: Number(m[2]) };
    m = /^must be a number from (-?[\d.]+) to (-?[\d.]+)$/.exec(message);
    if (m) return { minimum: Number(m[1]), maximum: Number(m[2]) };
    m = /^must have at most (\d+) entries$/.exec(message);
    if (m) return { maxItems: Number(m[1]) };
    return undefined;
  }
  /** Whether `schema` states `bound` (an enum as a set; a number's range at least as strict is not enough: equal). */
  function states(schema: any, bound: Record<string, unknown>): boolean {
    const of = (s: any): any => (s?.anyOf ? s.anyOf.find((x: any) => x.type !== 'null') : s);
    const s = of(schema);
    return Object.entries(bound).every(([k, v]) =>
      k === 'enum' ? JSON.stringify([...(s?.enum ?? [])].filter((x: unknown) => x !== null).sort()) === JSON.stringify(v) : s?.[k] === v,
    );
  }
  const typeOf = (schema: any): string | undefined => {
    const t = schema?.anyOf ? schema.anyOf.find((x: any) => x.type !== 'null')?.type : schema?.type;
    return Array.isArray(t) ? t.find((x: string) => x !== 'null') : t;
  };

  /** Path parameters naming objects of `me` (created here), so that a probe reaches the operation's checks. */
  async function ownedObjects(me: { key: string; agentId: string }) {
    const call = api(server);
    const as = (method: string, path: string, body?: unknown) => call(method, path, { key: me.key, ...(body === undefined ? {} : { body }) });
    const service = (
      await as('POST', '/services/register', {
        name: 'Probed service',
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A service to probe',
        pricing_model: 'free',
      })
    ).body;
    const subKey = (await as('POST', `/keys/provision/${service.service_key}`, {})).body;
    const ticket = (
      await as('POST', '/execute', {
        capability: 'support-ticket',
        input: { type: 'question', subject: 'Probe', description: 'A ticket to probe', agentName: 'probe' },
      })
    ).body.result;
    const values: Record<string, Record<string, string>> = {
      '/keys/': { keyId: subKey.sub_key_id, serviceKey: service.service_key },
      '/services/': { serviceKey: service.service_key },
      '/webhooks/': { id: (await as('POST', '/webhooks', { url: 'https://receiver.invalid/hook', events: ['*'] })).body.webhook_id },
      '/tickets/': { ticketKey: ticket.ticket_key },
      '/memory/stores/': { id: (await as('POST', '/memory/stores', { name: 'probe', storeType: 'kv' })).body.id, key: 'k' },
      '/subscriptions/': { id: (await as('POST', '/subscriptions', { capabilityId: 'summarize', schedule: '0 0 1 1 *', deliveryMethod: 'sse' })).body.id },
      '/streaming/sessions/': { id: (await as('POST', '/streaming/sessions', { capabilityId: 'summarize' })).body.id },
      '/agent-skills/': { id: (await as('POST', '/agent-skills', { name: `probe-${Date.now()}`, runtime: 'python', entrypoint: 'main' })).body.id },
      '/tasks/': { id: (await as('POST', '/tasks', { intent: 'A task to probe' })).body.task_id },
      '/uto/tickets/': { id: (await as('POST', '/uto/tickets', { intent: 'A ticket to probe', domain: 'probe', context: {} })).body.id },
      '/ammc/conglomerates/': { id: (await as('POST', '/ammc/conglomerates', { goal: 'A conglomerate to probe', max_budget_usd: 10 })).body.id },
      '/agents/': { id: me.agentId, agentId: me.agentId },
      '/admin/agents/': { agentId: me.agentId },
      '/capabilities/': { capabilityId: 'summarize', slug: 'summarize' },
    };
    return (path: string): string | undefined => {
      if (!path.includes(':')) return path;
      const prefix = Object.keys(values).find((p) => path.startsWith(p));
      if (!prefix) return undefined;
      const filled = path.replace(/:(\w+)/g, (m, name: string) => values[prefix][name] ?? m);
      return filled.includes(':') ? undefined : filled;
    };
  }

  it('states every length, enum, range and list size the server holds a body field or query parameter to', async () => {
    const me = await registerAgent(server);
    const call = api(server);
    const pathOf = await ownedObjects(me);
    const unstated: string[] = [];
    const check = (where: string, schema: any, errors: { path: string; message: string }[], path: string) => {
      for (const e of errors.filter((x) => x.path === path)) {
        const bound = boundOf(e.message);
        if (bound && !states(schema, bound)) unstated.push(`${where}: ${JSON.stringify(bound)} (the server says "${e.message}")`);
      }
    };
    for (const c of server.app.compiled) {
      const { route } = c;
      const path = pathOf(c.paths[0]);
      // A stream answers when it ends; DELETE takes no body.
      if (c.stream || path === undefined || route.method === 'DELETE') continue;
      const op = doc.paths[c.paths[0].replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      const send = async (body: unknown, query = '') => {
        const res = await call(route.method, `${path}${query}`, { key: route.auth === 'admin' ? ADMIN_KEY : me.key, ...(body === undefined ? {} : { body }) });
        return res.status === 400 ? ((res.body.errors ?? []) as { path: string; message: string }[]) : [];
      };
      const body = op.requestBody?.content['application/json'].schema;
      for (const [name, schema] of Object.entries<any>(body?.properties ?? {})) {
        const where = `${route.method} ${c.paths[0]} body.${name}`;
        const type = typeOf(schema);
        if (type === 'string') check(where, schema, await send({ [name]: 'z'.repeat(300_000) }), name);
        if (type === 'integer' || type === 'number') {
          check(where, schema, await send({ [name]: -BIG }), name);
          check(where, schema, await send({ [name]: BIG }), name);
        }
        if (type === 'array' && typeOf(schema.items) === 'string') {
          check(where, schema, await send({ [name]: Array.from({ length: 1000 }, (_v, i) => `item-${i}`) }), name);
          check(`${where}.items`, schema.items, await send({ [name]: ['z'.repeat(300_000)] }), `${name}.0`);
        }
      }
      for (const p of (op.parameters ?? []).filter((x: any) => x.in === 'query')) {
        const where = `${route.method} ${c.paths[0]} query ${p.name}`;
        const type = typeOf(p.schema);
        const body = c.bodyType ? {} : undefined;
        if (type === 'integer' || type === 'number') {
          check(where, p.schema, await send(body, `?${p.name}=${-BIG}`), p.name);
          check(where, p.schema, await send(body, `?${p.name}=${BIG}`), p.name);
        }
        if (type === 'string') check(where, p.schema, await send(body, `?${p.name}=${'z'.repeat(5000)}`), p.name);
      }
    }
    expect(unstated).toEqual([]);
  }, 180_000);

  it('marks required every body field the server requires', async () => {
    const me = await registerAgent(server);
    const call = api(server);
    const pathOf = await ownedObjects(me);
    const unstated: string[] = [];
    for (const c of server.app.compiled) {
      const { route } = c;
      const path = pathOf(c.paths[0]);
      if (!c.bodyType || path === undefined) continue;
      const schema = doc.paths[c.paths[0].replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()].requestBody.content['application/json'].schema;
      const res = await call(route.method, path, { key: route.auth === 'admin' ? ADMIN_KEY : me.key, body: {} });
      if (res.status !== 400) continue;
      // The schema itself, or the parts of an intersection.
      const parts = [schema, ...(schema.allOf ?? [])];
      const required = new Set<string>(parts.flatMap((p: any) => p.required ?? []));
      // Required unless another field is given: named by an alternative of an anyOf.
      const alternatives: string[][] = parts.flatMap((p: any) => (p.anyOf ?? []).map((a: any) => a.required ?? []));
      for (const e of (res.body.errors ?? []) as { path: string; message: string }[]) {
        if (e.message !== 'is required' || e.path.includes('.')) continue;
        if (!required.has(e.path) && !alternatives.some((a) => a.includes(e.path))) unstated.push(`${route.method} ${c.paths[0]} body.${e.path}`);
      }
    }
    expect(unstated).toEqual([]);
  }, 60_000);

  it('requires what creating a webhook, a subscription and a skill requires', () => {
    const body = (p: string) => doc.paths[p].post.requestBody.content['application/json'].schema;
    expect(body('/webhooks').required).toEqual(expect.arrayContaining(['url', 'events']));
    expect(body('/subscriptions').required).toEqual(expect.arrayContaining(['capabilityId', 'schedule', 'deliveryMethod']));
    expect(body('/agent-skills').anyOf).toEqual([{ required: ['skillMd'] }, { required: ['name', 'runtime', 'entrypoint'] }]);
    // A change requires nothing.
    expect(doc.paths['/webhooks/{id}'].patch.requestBody.content['application/json'].schema.required).toBeUndefined();
  });

  it('names the headers: X-Request-Id everywhere, Idempotency-Key and Idempotent-Replayed on creations, rate limits', async () => {
    const register = doc.paths['/agents/register'].post;
    expect(register.parameters).toEqual(
      expect.arrayContaining([{ $ref: '#/components/parameters/Idempotency-Key' }, { $ref: '#/components/parameters/X-Request-Id' }]),
    );
    expect(register.responses['201'].headers).toMatchObject({
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
      'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
    });
    expect(register.responses['409']).toBeDefined();
    expect(register.responses['400'].headers['X-Request-Id']).toBeDefined();
    expect(doc.components.parameters['Idempotency-Key']).toMatchObject({ in: 'header', schema: { maxLength: 255 } });
    // A read takes no Idempotency-Key.
    expect(doc.paths['/agents/me'].get.parameters).toEqual([{ $ref: '#/components/parameters/X-Request-Id' }]);
    // The checkout link's GET takes the payment the x402 client retries it with.
    expect(doc.paths['/ext/payments/checkout/{id}'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'PAYMENT-SIGNATURE', in: 'header', required: false })]),
    );
    // What the document says is what the server does: a replay says so, every answer carries its id.
    const me = await registerAgent(server);
    const key = `replay-${Date.now()}`;
    const create = () =>
      api(server)('POST', '/memory/stores', { key: me.key, body: { name: 'replayed', storeType: 'kv' }, headers: { 'Idempotency-Key': key } });
    const first = await create();
    const again = await create();
    expect(first.status).toBe(201);
    expect(first.headers.get('x-request-id')).toBeTruthy();
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).toEqual([201, 'true', first.body.id]);
    expect(doc.paths['/memory/stores'].post.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    const mine = await api(server)('GET', '/ping', { headers: { 'X-Request-Id': 'my-own.id:1' } });
    expect(mine.headers.get('x-request-id')).toBe('my-own.id:1');
  });

  it("documents /health's 503 as its own report, and 503 on every operation", () => {
    const health = doc.paths['/health'].get;
    expect(health.responses['503'].content['application/json'].schema).toEqual(health.responses['200'].content['application/json'].schema);
    expect(health.responses['503'].headers['Retry-After']).toBeDefined();
    expect(doc.paths['/agents/me'].get.responses['503'].content['application/problem+json']).toBeDefined();
    expect(doc.paths['/execute'].post.responses['503'].description).toMatch(/capability_unavailable/);
    expect(doc.paths['/execute'].post.responses['402'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/PaymentProblem' });
  });

  it("shows each first-party capability's input and output schema, and describes execute with them", () => {
    const offered = [...FIRST_PARTY.values()].filter((c) => !c.available || c.available(server.app.services));
    expect(offered.map((c) => c.slug)).toEqual(expect.arrayContaining(['support-ticket', 'trust-score', 'skill-audit']));
    for (const c of offered) {
      const name = capabilitySchemaName(c.slug);
      expect(doc.components.schemas[`${name}Input`]).toEqual({
        ...c.inputSchema,
        title: `${c.slug} input`,
        description: expect.stringContaining(c.summary),
        'x-capability': c.slug,
      });
      expect(doc.components.schemas[`${name}Output`]).toEqual({
        ...c.outputSchema,
        title: `${c.slug} output`,
        description: expect.stringContaining(c.summary),
        'x-capability': c.slug,
      });
      if (typeof c.inputSchema.description === 'string') expect(doc.components.schemas[`${name}Input`].description).toContain(c.inputSchema.description);
    }
    // Not offered here, not shown.
    for (const c of FIRST_PARTY.values()) if (!offered.includes(c)) expect(doc.components.schemas[`${capabilitySchemaName(c.slug)}Input`]).toBeUndefined();
    const execute = doc.paths['/execute'].post;
    const body = execute.requestBody.content['application/json'].schema;
    expect(body.allOf[0].properties.capability).toBeDefined();
    const alternatives = body.allOf[1].anyOf;
    expect(alternatives).toContainEqual({
      title: 'support-ticket',
      properties: { capability: { const: 'support-ticket' }, input: { $ref: '#/components/schemas/SupportTicketInput' } },
      required: ['capability', 'input'],
    });
    const others = alternatives.at(-1);
    expect(others.properties.capability.not.enum).toEqual(expect.arrayContaining(['support-ticket', 'trust-score']));
    const answers = execute.responses['200'].content['application/json'].schema.allOf[1].anyOf;
    expect(answers).toContainEqual(
      expect.objectContaining({
        title: 'trust-score',
        properties: expect.objectContaining({ result: { anyOf: [{ $ref: '#/components/schemas/TrustScoreOutput' }, { type: 'null' }] } }),
      }),
    );
  });

  it('holds what execute answers for a first-party capability to its documented output schema', async () => {
    const me = await registerAgent(server);
    const res = await api(server)('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
    expect(res.status).toBe(200);
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(doc.components.schemas.TrustScoreOutput);
    expect(validate(res.body.result) ? [] : validate.errors).toEqual([]);
  });
});
