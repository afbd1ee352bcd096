// The chat-completions client (src/platform/chat-model.ts) against a real HTTP server on loopback: what it
// sends, what it reads back, and how it fails — a redirect not followed, an answer too large, a slow or
// cancelled call, a malformed or usage-less answer — with messages that name the origin and nothing else,
// and what a failed call spent when the backend said.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatModel, ChatModelError } from '../../src/platform/chat-model';
import { arrivals } from '../support/arrivals';

let server: http.Server;
let origin: string;
const bodies: any[] = [];
const requests = arrivals(bodies, 'requests');
const slowAnswers = new Set<NodeJS.Timeout>();
const headers: http.IncomingHttpHeaders[] = [];

const completion = (extra: Record<string, unknown> = {}) => ({
  id: 'c1',
  object: 'chat.completion',
  model: 'served-model',
  choices: [{ index: 0, message: { role: 'assistant', content: '{"ok":true}' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
  ...extra,
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      headers.push(req.headers);
      requests.arrived();
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const scenario = req.url!.split('/')[1];
      switch (scenario) {
        case 'ok':
          return json(200, completion());
        case 'redirect':
          return res.writeHead(307, { location: `${origin}/ok/v1/chat/completions` }).end();
        case 'huge':
          return json(200, completion({ padding: 'x'.repeat(5 * 1024 * 1024) }));
        case 'slow': {
          const timer = setTimeout(() => {
            slowAnswers.delete(timer);
            json(200, completion());
          }, 3_000);
          return slowAnswers.add(timer);
        }
        case 'no-usage':
          return json(200, completion({ usage: undefined }));
        case 'not-completion':
          return json(200, { hello: 'world' });
        case 'error':
          return json(429, { error: { message: 'Rate limit reached for sk-secret-key on /v1/chat/completions' } });
        case 'error-with-usage':
          return json(500, { error: { message: 'generation failed' }, model: 'served-model', usage: { prompt_tokens: 40, completion_tokens: 7 } });
        case 'no-message':
          return json(200, completion({ choices: [] }));
        default:
          return json(404, { error: 'no such scenario' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const timer of slowAnswers) clearTimeout(timer);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const clients: ChatModel[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(scenario: string, timeoutMs = 2_000) {
  const c = new ChatModel({ baseUrl: `${origin}/${scenario}/v1/`, model: 'asked-model', apiKey: 'sk-secret-key', timeoutMs });
  clients.push(c);
  return c;
}

const request = (signal?: AbortSignal) => ({
  messages: [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: '{"text":"hi"}' },
  ],
  schema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } },
  maxTokens: 50,
  temperature: 0,
  signal,
});

async function failure(p: Promise<unknown>): Promise<ChatModelError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ChatModelError);
    const e = err as ChatModelError;
    // What a caller may see: the origin, never the path, the key or the backend's words.
    expect(e.message).not.toMatch(/\/v1|chat\/completions|sk-secret|Rate limit/);
    return e;
  }
  throw new Error('the call did not fail');
}

it('posts a structured-output completion and reads the answer, the model that served it and its usage', async () => {
  const answer = await client('ok').complete(request());
  expect(bodies.at(-1)).toEqual({
    model: 'asked-model',
    messages: request().messages,
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: request().schema.schema, strict: true } },
    max_tokens: 50,
    temperature: 0,
    stream: false,
  });
  expect(headers.at(-1)!.authorization).toBe('Bearer sk-secret-key');
  expect(answer).toMatchObject({
    content: '{"ok":true}',
    refusal: null,
    finishReason: 'stop',
    model: 'served-model',
    usage: { model: 'served-model', prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
  });
});

it('leaves usage out when the backend reports none, rather than guessing', async () => {
  expect((await client('no-usage').complete(request())).usage).toBeUndefined();
});

it('does not follow a redirect', async () => {
  const before = bodies.length;
  const e = await failure(client('redirect').complete(request()));
  expect(e).toMatchObject({ reason: 'status', status: 307 });
  expect(bodies.length).toBe(before + 1);
});

it('keeps the backend’s error message for the operator, out of the caller’s message', async () => {
  const e = await failure(client('error').complete(request()));
  expect(e).toMatchObject({ reason: 'status', status: 429, message: `the model backend (${origin}) answered HTTP 429` });
  expect(e.backendMessage).toMatch(/Rate limit reached/);
});

it('keeps what a failed call spent when the backend reported it', async () => {
  expect(await failure(client('error-with-usage').complete(request()))).toMatchObject({
    reason: 'status',
    status: 500,
    usage: { model: 'served-model', prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 },
  });
  expect(await failure(client('no-message').complete(request()))).toMatchObject({
    reason: 'malformed',
    usage: { model: 'served-model', prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
  });
  expect((await failure(client('error').complete(request()))).usage).toBeUndefined();
});

it('refuses an answer larger than 4 MiB', async () => {
  expect(await failure(client('huge').complete(request()))).toMatchObject({ reason: 'too_large' });
});

it('refuses an answer that is not a chat completion', async () => {
  expect(await failure(client('not-completion').complete(request()))).toMatchObject({ reason: 'malformed' });
});

it('gives up at its timeout, and at once when the caller cancels', async () => {
  const started = Date.now();
  expect(await failure(client('slow', 300).complete(request()))).toMatchObject({
    reason: 'timeout',
    message: `the model backend (${origin}) gave no complete answer within 300 ms`,
  });
  expect(Date.now() - started).toBeLessThan(2_000);
  const controller = new AbortController();
  // Cancelled while the backend holds the call (were it never to arrive, the expect below says what came).
  void requests.waitFor(bodies.length + 1).then(
    () => controller.abort(),
    () => undefined,
  );
  expect(await failure(client('slow').complete(request(controller.signal)))).toMatchObject({ reason: 'aborted' });
});

it('fails as a connection failure when nothing listens', async () => {
  const c = new ChatModel({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 2_000 });
  clients.push(c);
  expect(await failure(c.complete(request()))).toMatchObject({ reason: 'connection' });
});
