// A model backend on loopback speaking the OpenAI-compatible chat-completions API, as Ollama does on
// 127.0.0.1:11434: it checks each request as a real backend would need it (the model, the messages, the
// JSON Schema response format, a token budget) and answers what the test scripts, with usage. A request
// that is not a well-formed structured-output completion answers 400, as the real ones do, and is kept in
// `refused` so a test sees why.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatCall {
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The JSON Schema the answer was asked to follow. */
  schema: Record<string, any>;
  /** The schema's name. */
  name: string;
  /** The user message, parsed (the capabilities send their input as JSON). */
  input: any;
  system: string;
}

/** One answer: `content` is sent as the message (an object is JSON-encoded); `status` with `error` fails. */
export interface ChatAnswer {
  content?: unknown;
  finishReason?: string;
  refusal?: string;
  status?: number;
  error?: string;
  delayMs?: number;
  /** Leave `usage` out, as some backends do. */
  noUsage?: boolean;
}

export type Responder = (call: ChatCall) => ChatAnswer;

export interface ChatModelFixture {
  /** The base URL, as LLM_BASE_URL takes it (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  model: string;
  apiKey: string;
  calls: ChatCall[];
  /** Requests refused as malformed, with why. */
  refused: { body: unknown; why: string }[];
  /** Answers for the next calls, in order; then `respond`'s. */
  script(...next: ChatAnswer[]): void;
  /** How calls are answered once the script is used up (default: 500, "nothing scripted"). */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** Tokens as a real backend would count them, roughly: a word each. */
const tokensOf = (text: string) => text.split(/\s+/).filter(Boolean).length;

function problemWith(body: any, model: string): string | undefined {
  if (typeof body !== 'object' || body === null) return 'the body is not a JSON object';
  if (body.model !== model) return `model is ${JSON.stringify(body.model)}, not ${model}`;
  if (!Array.isArray(body.messages) || body.messages.length < 2) return 'messages must hold a system and a user message';
  for (const m of body.messages)
    if (!['system', 'user', 'assistant'].includes(m?.role) || typeof m.content !== 'string' || !m.content) return 'a message has no role or content';
  if (body.messages[0].role !== 'system' || body.messages[1].role !== 'user') return 'messages must start with the system message, then the user message';
  const format = body.response_format;
  if (format?.type !== 'json_schema') return 'response_format.type must be json_schema';
  const js = format.json_schema;
  if (typeof js?.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name)) return 'response_format.json_schema.name must be 1-64 letters, digits, _ or -';
  if (js.strict !== true) return 'response_format.json_schema.strict must be true';
  if (js.schema?.type !== 'object' || js.schema.additionalProperties !== false) return 'the schema must be a closed object';
  const props = Object.keys(js.schema.properties ?? {});
  if (props.length === 0 || props.some((p) => !js.schema.required?.includes(p))) return 'strict mode needs every property required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens must be a positive integer';
  if (body.stream !== false) return 'stream must be false';
  return undefined;
}

export async function startChatModel(opts: { model?: string; apiKey?: string } = {}): Promise<ChatModelFixture> {
  const model = opts.model ?? 'fixture-model:7b';
  const apiKey = opts.apiKey ?? 'sk-fixture-key';
  const calls: ChatCall[] = [];
  const refused: { body: unknown; why: string }[] = [];
  const scripted: ChatAnswer[] = [];
  let responder: Responder = () => ({ status: 500, error: 'nothing scripted for this call' });
  const delayed = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: `no route ${req.method} ${req.url}` });
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return send(401, { error: { message: 'Incorrect API key provided: sk-fi*****', type: 'invalid_request_error' } });
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: 'the body is not JSON' });
      }
      const why = problemWith(body, model);
      if (why) {
        refused.push({ body, why });
        return send(400, { error: { message: why } });
      }
      let input: unknown;
      try {
        input = JSON.parse(body.messages[1].content);
      } catch {
        input = body.messages[1].content;
      }
      const call: ChatCall = {
        headers: req.headers,
        body,
        schema: body.response_format.json_schema.schema,
        name: body.response_format.json_schema.name,
        input,
        system: body.messages[0].content,
      };
      calls.push(call);
      const answer = scripted.shift() ?? responder(call);
      const reply = () => {
        if (answer.status && answer.status !== 200) return send(answer.status, { error: { message: answer.error ?? 'failed' } });
        const content = answer.content === undefined ? null : typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content);
        const prompt = body.messages.reduce((n: number, m: { content: string }) => n + tokensOf(m.content), 0);
        const completion = content ? tokensOf(content) : 0;
        send(200, {
          id: `chatcmpl-${calls.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, ...(answer.refusal ? { refusal: answer.refusal } : {}) },
              finish_reason: answer.finishReason ?? 'stop',
            },
          ],
          ...(answer.noUsage ? {} : { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } }),
        });
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          reply();
        }, answer.delayMs);
        delayed.add(timer);
      } else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model,
    apiKey,
    calls,
    refused,
    script: (...next) => void scripted.push(...next),
    respond: (r) => {
      responder = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The env that points a test server at the fixture. */
export const chatModelEnv = (m: ChatModelFixture, extra: Record<string, string> = {}) => ({
  LLM_BASE_URL: m.baseUrl,
  LLM_MODEL: m.model,
  LLM_API_KEY: m.apiKey,
  ...extra,
});
