// The OpenAPI document: valid OpenAPI 3.1, built from the route tables, and true to what the server answers.
import fs from 'node:fs';
import path from 'node:path';
import { routes } from '../../rest/routes';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startServer();
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
  expect(uptime.parameters).toEqual([expect.objectContaining({ name: 'days', in: 'query', required: false, schema: { type: 'integer' } })]);
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
