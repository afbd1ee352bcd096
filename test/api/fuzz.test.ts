// Fuzzing every operation of the OpenAPI document the server publishes (so an operation added later is
// fuzzed without writing anything): bodies built from each request schema, then broken — wrong types,
// nulls, unknown fields, nesting past the limit, NUL and lone surrogates, huge numbers, invalid JSON —
// with odd path and query parameters and every kind of credential. Never a 5xx; every error problem+json.
import fc from 'fast-check';
import { registerAgent, startServer, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'F'.repeat(40)}`;
let server: TestServer;
let agentKey: string;
let doc: any;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  agentKey = (await registerAgent(server)).key;
  doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
});
afterAll(() => server.close());

type Schema = Record<string, any>;

interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string; schema: Schema }[];
  body?: Schema;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      out.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body: op.requestBody?.content?.['application/json']?.schema });
    }
  }
  return out;
}

/** A plausible value of a JSON schema (every property present). */
function sample(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 5) return null;
  if (schema.enum) return schema.enum[0];
  // An intersection (execute's body: its input type and the capabilities' alternatives): its first part.
  if (schema.allOf) return sample(schema.allOf[0], depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries<Schema>(schema.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
    case 'array':
      return [sample(schema.items, depth + 1)];
    case 'integer':
      return 1;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'string':
      return schema.format === 'date-time' ? new Date(Date.now() + 86_400_000).toISOString() : 'fuzz';
    default:
      return { any: 'json' };
  }
}

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/** Hostile values, as JSON text (so lone surrogates and NULs travel as the escapes clients send). */
const hostile = fc.constantFrom(
  'null',
  '""',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff tail"',
  '1e308',
  '-1e308',
  '9007199254740993',
  '1.5',
  '-1',
  '0',
  'true',
  '[]',
  '{}',
  '[null]',
  '"x"',
  `"${'y'.repeat(5000)}"`,
  nested(40),
  `{"a":${nested(35)}}`,
  '"00000000-0000-4000-8000-000000000000"',
  '"😀"',
  '{"$gt": 1}',
  '"<script>"',
  '"\'; DROP TABLE agents; --"',
);

const pathValue = fc.constantFrom(
  'x',
  '%00',
  'a%00b',
  '00000000-0000-4000-8000-000000000000',
  'ST-1',
  'svc_unknown',
  '%ED%A0%80',
  'z'.repeat(600),
  '..%2F..',
  '%F0%9F%98%80',
  '-1',
  '1e999',
);
const queryValue = fc.constantFrom('', 'abc', '-1', '0', '1e309', '99999999999999', '%00', 'true', '%ED%A0%80', 'ACTIVE', 'x'.repeat(300));
// Mostly the agent's key, which reaches furthest (past authentication into the operation).
const credential = fc.oneof(
  { weight: 4, arbitrary: fc.constant<string | undefined>('agent') },
  { weight: 3, arbitrary: fc.constantFrom<string | undefined>(undefined, 'Bearer nonsense', `Bearer key_master_${'U'.repeat(40)}`, 'admin', 'Basic abc') },
);

/** A body for the operation: its sample with one field (at any depth) replaced, or something else entirely. */
function bodyArbitrary(op: Operation): fc.Arbitrary<string | undefined> {
  const base = sample(op.body) as Record<string, unknown> | null;
  const paths: string[][] = [];
  const walk = (v: unknown, at: string[]) => {
    if (at.length) paths.push(at);
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
    else if (Array.isArray(v) && v.length) walk(v[0], [...at, '0']);
  };
  walk(base, []);
  const replaced = fc.tuple(fc.constantFrom(...(paths.length ? paths : [['extra']])), hostile).map(([at, text]) => {
    // The sample as JSON text with one value swapped for hostile JSON text.
    const marker = '"__FUZZ_MARKER__"';
    const copy = JSON.parse(JSON.stringify(base ?? {}));
    let target = copy;
    for (const key of at.slice(0, -1)) target = target[key];
    target[at[at.length - 1]] = '__FUZZ_MARKER__';
    return JSON.stringify(copy).replace(marker, text);
  });
  return fc.oneof(
    { weight: 6, arbitrary: replaced },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', '{', 'null', '[]', '"text"', '{"unknown_field": 1}', JSON.stringify(base), nested(5_000)) },
    { weight: 1, arbitrary: hostile },
  );
}

function expectSound(op: Operation, res: { status: number; contentType: string; text: string }) {
  const where = `${op.method} ${op.path} → ${res.status} ${res.text.slice(0, 200)}`;
  expect({ where, serverError: res.status >= 500 }).toEqual({ where, serverError: false });
  if (res.status >= 400) {
    expect({ where, problem: /problem\+json/.test(res.contentType) }).toEqual({ where, problem: true });
    const body = JSON.parse(res.text);
    expect(typeof body.code).toBe('string');
  }
  expect(res.text).not.toMatch(/at .+\.ts:\d+|SELECT .* FROM|prisma|PrismaClient/i);
}

/** Broken requests per operation. */
const RUNS = 40;

/** A broken request to send: where, how and with what. */
interface Broken {
  method: string;
  url: string;
  authorization?: string;
  body?: string;
}

/**
 * Sends one request and reads its answer (a stream's headers only: a stream that opened stays open), with
 * how long that took from the first byte sent to the last read.
 */
async function send(request: Broken): Promise<{ res: Response; contentType: string; text: string; ms: number }> {
  const started = performance.now();
  const aborter = new AbortController();
  const res = await fetch(request.url, {
    method: request.method,
    headers: {
      ...(request.authorization ? { authorization: request.authorization } : {}),
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
    signal: aborter.signal,
  });
  const contentType = res.headers.get('content-type') ?? '';
  let text = '';
  if (contentType.startsWith('text/event-stream')) aborter.abort();
  else text = await res.text();
  return { res, contentType, text, ms: performance.now() - started };
}

/** What a broken request may take: its operation's typical one, and any one. */
const TYPICAL_MS = 100;
const WORST_MS = 1000;

it('answers every operation of the OpenAPI document, however broken the request, without a 5xx', async () => {
  const ops = operations();
  expect(ops.length).toBeGreaterThan(80);
  for (const [index, op] of ops.entries()) {
    const times: number[] = [];
    const slow: { request: Broken; ms: number }[] = [];
    await fc.assert(
      fc.asyncProperty(
        credential,
        fc.array(pathValue, { minLength: 4, maxLength: 4 }),
        fc.dictionary(
          fc.constantFrom(
            ...op.parameters
              .filter((p) => p.in === 'query')
              .map((p) => p.name)
              .concat('unknown'),
          ),
          queryValue,
          { maxKeys: 3 },
        ),
        op.body ? bodyArbitrary(op) : fc.constant(undefined),
        async (cred, pathValues, query, body) => {
          let i = 0;
          const path = op.path.replace(/\{(\w+)\}/g, () => pathValues[i++ % pathValues.length]);
          const qs = Object.entries(query)
            .map(([k, v]) => `${k}=${v}`)
            .join('&');
          const authorization = cred === 'agent' ? `Bearer ${agentKey}` : cred === 'admin' ? `Bearer ${ADMIN_KEY}` : cred;
          const request: Broken = {
            method: op.method,
            url: `${server.url}/api/v1${path}${qs ? `?${qs}` : ''}`,
            authorization: authorization || undefined,
            body,
          };
          const { res, contentType, text, ms } = await send(request);
          times.push(ms);
          if (ms >= WORST_MS) slow.push({ request, ms });
          // Every answer, streams included, carries one request id.
          expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
          expectSound(op, { status: res.status, contentType, text });
        },
      ),
      { numRuns: RUNS, seed: 20261123 + index, endOnFailure: true },
    );
    // Bounded: no broken request costs the server more than a moment. Wall-clock time on a machine shared
    // with the rest of the suite also holds whatever ran meanwhile, so an operation is judged by its median
    // (on this machine 2-20 ms alone, about twice that beside the suite), and a request that took a second
    // is sent again: what it costs again, alone, is its own.
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    expect({ op: `${op.method} ${op.path}`, typical: median < TYPICAL_MS }).toEqual({ op: `${op.method} ${op.path}`, typical: true });
    for (const { request, ms } of slow) {
      const again = (await send(request)).ms;
      const what = `${request.method} ${request.url} (${request.body?.length ?? 0} bytes of body): ${Math.round(ms)} ms, then ${Math.round(again)} ms`;
      expect({ what, underASecond: again < WORST_MS }).toEqual({ what, underASecond: true });
    }
  }
}, 240_000);
