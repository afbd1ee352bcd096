// The one naming rule of REST requests, checked over every route of the route tables: each body field at
// any depth and each query parameter reads the same in both spellings; a field given twice with different
// values, and an unknown field, are refused naming the field as the client spelled it.
import { routes } from '../../rest/routes';
import { compileRoutes, readVariables, type CompiledRoute, type RestRequest } from '../../rest/runner';
import { documentedName } from '../../src/pipeline/spelling';
import { camelCase, otherSpelling, sameJson, snakeCase, withBothSpellings } from '../../src/platform/naming';
import { schema } from '../../schema';
import { ValidationFailed } from '../../src/platform/errors';
import { hasRespellableField, JSON_SAMPLE, respell, sampleValue } from '../support/sample-input';

const compiled = compileRoutes(schema, routes);
const label = (c: CompiledRoute) => c.label;

function request(c: CompiledRoute, body: unknown, query = new URLSearchParams()): RestRequest {
  const params = Object.fromEntries(c.variables.filter((v) => v.source.from === 'path').map((v) => [(v.source as { name: string }).name, 'x']));
  return { params, query, body, header: () => undefined };
}

function refusal(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationFailed) return err.errors;
    throw err;
  }
  throw new Error('expected a validation error');
}

describe('the spelling of a name', () => {
  it.each([
    ['pricingModel', 'pricing_model'],
    ['ticketReceiveUrl', 'ticket_receive_url'],
    ['latencyP50Ms', 'latency_p50_ms'],
    ['topK', 'top_k'],
    ['maxBudgetUsd', 'max_budget_usd'],
  ])('reads %s and %s as one name', (camel, snake) => {
    expect(snakeCase(camel)).toBe(snake);
    expect(camelCase(snake)).toBe(camel);
    expect(otherSpelling(camel)).toBe(snake);
    expect(otherSpelling(snake)).toBe(camel);
  });

  it('has one spelling for a one-word name', () => {
    expect(otherSpelling('limit')).toBe('limit');
  });

  it("documents the spec's snake_case fields in snake_case and the rest as GraphQL names them", () => {
    expect(documentedName('pricingModel')).toBe('pricing_model');
    expect(documentedName('costPerCall')).toBe('costPerCall');
    expect(documentedName('storeType')).toBe('storeType');
  });

  it("reads a free-form object's fields under either spelling, refusing two different values", () => {
    const read = withBothSpellings({ agent_name: 'a', ticketKey: 'ST-1', limit: 5, callback_url: 'x', callbackUrl: 'x' });
    expect([read.agentName, read.agent_name, read.ticket_key, read.ticketKey, read.limit, read.callbackUrl]).toEqual(['a', 'a', 'ST-1', 'ST-1', 5, 'x']);
    expect(() => withBothSpellings({ agentName: 'a', agent_name: 'b' }, 'input.')).toThrow(ValidationFailed);
    try {
      withBothSpellings({ agentName: 'a', agent_name: 'b' }, 'input.');
    } catch (err) {
      expect((err as ValidationFailed).errors).toEqual([{ path: 'input.agent_name', message: expect.stringMatching(/given twice/) }]);
    }
  });

  it('compares JSON values in any key order, and deep ones without recursion', () => {
    expect(sameJson({ a: [1, { b: 2, c: 3 }] }, { a: [1, { c: 3, b: 2 }] })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(sameJson(deep, deep)).toBe(true);
  });
});

const bodyRoutes = compiled.filter((c) => c.bodyType);
const respellable = bodyRoutes.filter((c) => hasRespellableField(c.bodyType!));

describe('every body route', () => {
  it('is checked here (the route tables have body routes with two-spelling fields)', () => {
    expect(respellable.length).toBeGreaterThan(10);
  });

  it.each(respellable.map((c) => [label(c), c] as const))('%s reads every field in both spellings as the same input', (_label, c) => {
    const body = sampleValue(c.bodyType!) as Record<string, unknown>;
    const canonical = readVariables(c, request(c, body)).values;
    const other = readVariables(c, request(c, respell(body, c.bodyType!))).values;
    expect(other).toEqual(canonical);
    // Every field arrived, named as the input type names it; JSON values are passed on untouched.
    const bodyVar = c.variables.find((v) => v.source.from === 'body');
    if (bodyVar) expect(canonical[bodyVar.name]).toEqual(body);
    expect(JSON.stringify(canonical)).not.toMatch(/"JSON_SAMPLE"/);
  });

  it.each(respellable.map((c) => [label(c), c] as const))('%s refuses a field given in both spellings with different values', (_label, c) => {
    const body = sampleValue(c.bodyType!) as Record<string, unknown>;
    const field = Object.keys(body).find((k) => otherSpelling(k) !== k);
    if (!field) return; // the two-spelling field is deeper; the nested case below covers depth
    const errors = refusal(() => readVariables(c, request(c, { ...body, [otherSpelling(field)]: { different: true } })));
    expect(errors).toContainEqual({ path: otherSpelling(field), message: expect.stringMatching(/given twice/) });
    // The same value in both spellings is one field.
    expect(readVariables(c, request(c, { ...body, [otherSpelling(field)]: body[field] })).values).toEqual(readVariables(c, request(c, body)).values);
  });

  it.each(bodyRoutes.map((c) => [label(c), c] as const))('%s refuses an unknown field by its name', (_label, c) => {
    const body = sampleValue(c.bodyType!) as Record<string, unknown>;
    expect(refusal(() => readVariables(c, request(c, { ...body, no_such_field: 1 })))).toContainEqual({
      path: 'no_such_field',
      message: 'is not a known field',
    });
  });
});

describe('nested fields', () => {
  const write = compiled.find((c) => c.label === 'PUT /memory/stores/:id/entries')!;
  const resolve = compiled.find((c) => c.label === 'POST /resolve')!;

  it('are read in both spellings inside lists and objects', () => {
    const { values } = readVariables(
      write,
      request(write, {
        entries: [
          { key: 'a', ttl_seconds: 5 },
          { key: 'b', ttlSeconds: 6 },
        ],
      }),
    );
    expect(values.input).toEqual({
      entries: [
        { key: 'a', ttlSeconds: 5 },
        { key: 'b', ttlSeconds: 6 },
      ],
    });
    const nested = readVariables(resolve, request(resolve, { capability: 'x', constraints: { minReputation: 5, max_cost: 3 } })).values;
    expect(nested.input).toEqual({ capability: 'x', constraints: { minReputation: 5, maxCost: 3 } });
  });

  it('are named as the client spelled them when refused, and in the documented spelling when missing', () => {
    const errors = refusal(() =>
      readVariables(
        write,
        request(write, {
          entries: [
            { key: 'a', ttl_seconds: 'soon' },
            { key: 'b', ttlSeconds: 1, ttl_seconds: 2 },
          ],
        }),
      ),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'entries.0.ttl_seconds', message: 'must be an integer' },
        { path: 'entries.1.ttl_seconds', message: expect.stringMatching(/given twice/) },
      ]),
    );
    const register = compiled.find((c) => c.label === 'POST /services/register')!;
    expect(refusal(() => readVariables(register, request(register, {})))).toContainEqual({ path: 'pricing_model', message: 'is required' });
  });

  it('leave the contents of JSON values as sent', () => {
    const exec = compiled.find((c) => c.label === 'POST /execute')!;
    const { values } = readVariables(exec, request(exec, { capability: 'x', input: JSON_SAMPLE }));
    expect((values.input as { input: unknown }).input).toEqual(JSON_SAMPLE);
  });
});

describe('query parameters', () => {
  const services = compiled.find((c) => c.label === 'GET /services')!;

  it('are read in both spellings', () => {
    const snake = readVariables(services, request(services, undefined, new URLSearchParams('min_reputation=40'))).values;
    const camel = readVariables(services, request(services, undefined, new URLSearchParams('minReputation=40'))).values;
    expect(camel).toEqual(snake);
    expect(snake.minReputation).toBe(40);
  });

  it('refuse one given in both spellings with different values, and accept the same value twice', () => {
    expect(refusal(() => readVariables(services, request(services, undefined, new URLSearchParams('min_reputation=40&minReputation=41'))))).toEqual([
      { path: 'minReputation', message: expect.stringMatching(/given twice/) },
    ]);
    expect(readVariables(services, request(services, undefined, new URLSearchParams('min_reputation=40&minReputation=40'))).values.minReputation).toBe(40);
  });

  it('are named as the client spelled them when refused', () => {
    expect(refusal(() => readVariables(services, request(services, undefined, new URLSearchParams('minReputation=high'))))).toEqual([
      { path: 'minReputation', message: 'must be an integer' },
    ]);
  });
});
