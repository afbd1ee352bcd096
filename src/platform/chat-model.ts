// The client of a model backend speaking the OpenAI-compatible chat-completions API (Ollama, vLLM, hosted APIs):
// one completion at a time, its answer constrained to a JSON Schema. Its origin is operator configuration
// (LLM_BASE_URL), never a caller's, so it has its own pool pinned to that origin (plain http and loopback allowed)
// instead of the SSRF-guarded client; that client's other rules hold: no redirects, bounded time and size, and
// messages that name the origin only (docs/security.md, The model backend).
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';

export interface ChatModelOptions {
  /** Up to and including the API's version segment, e.g. `http://127.0.0.1:11434/v1`; no trailing slash. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Budget of one completion: connecting, the headers and the whole body. */
  timeoutMs: number;
  /** Default 4 MiB; a longer answer fails with `too_large`. */
  maxResponseBytes?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** The JSON Schema the answer must follow, sent as `response_format: {type: "json_schema", …, strict: true}`. */
  schema: { name: string; schema: Record<string, unknown> };
  /** `max_tokens`: the most the answer may take. */
  maxTokens: number;
  temperature: number;
  /** Ends the call early (the caller's deadline); the client's own timeout applies too. */
  signal?: AbortSignal;
  /** A shorter budget than the client's for this call (what is left of the caller's). */
  timeoutMs?: number;
}

/** What the backend reported it used (`usage`), with the model that answered. */
export interface ChatUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatAnswer {
  /** The message's text (the JSON answer), or null when the model gave none. */
  content: string | null;
  /** A refusal the model gave instead of an answer (OpenAI's `message.refusal`). */
  refusal: string | null;
  /** `stop`, `length` (cut at maxTokens), … */
  finishReason: string | null;
  /** The model that answered (the response's `model`, else the configured one). */
  model: string;
  /** Absent when the backend reported none. */
  usage?: ChatUsage;
  latencyMs: number;
}

export type ChatModelFailure = 'timeout' | 'aborted' | 'connection' | 'status' | 'malformed' | 'too_large';

/** Messages name the backend's origin and, for `status`, the HTTP status: never the path, key or body. */
export class ChatModelError extends Error {
  constructor(
    readonly reason: ChatModelFailure,
    message: string,
    /** The HTTP status, for `status`. */
    readonly status?: number,
    /** The backend's own error message (for the operator's log; may echo the request). */
    readonly backendMessage?: string,
    /** What the backend reported spending on the failed call, when its answer said (an error or a malformed completion with `usage`). */
    readonly usage?: ChatUsage,
  ) {
    super(message);
    this.name = 'ChatModelError';
  }
}

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export class ChatModel {
  readonly model: string;
  readonly origin: string;
  private readonly path: string;
  private readonly agent: Agent;

  constructor(private readonly opts: ChatModelOptions) {
    const url = new URL(`${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('LLM_BASE_URL must be an http:// or https:// URL');
    this.origin = url.origin;
    this.path = `${url.pathname}${url.search}`;
    this.model = opts.model;
    // A few connections: completions are long and the backend usually serves one or two at a time.
    // undici is loaded here, by an instance with a chat model configured: none else needs it at start.
    const { Agent } = require('undici') as typeof import('undici');
    this.agent = new Agent({ connections: 16, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
  }

  /** One completion. Fails with a ChatModelError; an answer that is not what was asked is the caller's to judge. */
  async complete(req: ChatRequest): Promise<ChatAnswer> {
    const timeoutMs = Math.max(1, Math.min(req.timeoutMs ?? this.opts.timeoutMs, this.opts.timeoutMs));
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const body = JSON.stringify({
      model: this.model,
      messages: req.messages,
      response_format: { type: 'json_schema', json_schema: { name: req.schema.name, schema: req.schema.schema, strict: true } },
      max_tokens: req.maxTokens,
      temperature: req.temperature,
      stream: false,
    });
    const started = performance.now();
    const failure = (err: unknown): ChatModelError => {
      if (err instanceof ChatModelError) return err;
      const code = (err as { code?: unknown })?.code;
      if (timeout.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
        return new ChatModelError('timeout', `the model backend (${this.origin}) gave no complete answer within ${timeoutMs} ms`);
      if (req.signal?.aborted) return new ChatModelError('aborted', `the call to the model backend (${this.origin}) was cancelled`);
      return new ChatModelError(
        'connection',
        `the model backend (${this.origin}) could not be reached (${typeof code === 'string' ? code : 'connection failed'})`,
      );
    };
    let status: number;
    let text: string;
    try {
      const res = await this.agent.request({
        origin: this.origin,
        path: this.path,
        method: 'POST',
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await readBounded(res.body, this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, this.origin);
    } catch (err) {
      throw failure(err);
    }
    const latencyMs = performance.now() - started;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (status < 200 || status > 299) {
      const backendMessage = errorMessageOf(json) ?? text.slice(0, 500);
      throw new ChatModelError(
        'status',
        `the model backend (${this.origin}) answered HTTP ${status}`,
        status,
        backendMessage,
        isObject(json) ? usageOf(json.usage, this.modelOf(json)) : undefined,
      );
    }
    return this.answerOf(json, latencyMs);
  }

  /** The model an answer names, else the configured one. */
  private modelOf(json: Record<string, unknown>): string {
    return typeof json.model === 'string' && json.model ? json.model : this.model;
  }

  private answerOf(json: unknown, latencyMs: number): ChatAnswer {
    if (!isObject(json))
      throw new ChatModelError('malformed', `the model backend (${this.origin}) answered something other than a chat completion (not a JSON object)`);
    const model = this.modelOf(json);
    const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
    if (!isObject(choice) || !isObject(choice.message)) {
      throw new ChatModelError(
        'malformed',
        `the model backend (${this.origin}) answered a chat completion without a message`,
        undefined,
        undefined,
        usageOf(json.usage, model),
      );
    }
    const { content, refusal } = choice.message;
    return {
      content: typeof content === 'string' ? content : null,
      refusal: typeof refusal === 'string' && refusal ? refusal : null,
      finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
      model,
      usage: usageOf(json.usage, model),
      latencyMs,
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const tokens = (value: unknown): number | undefined => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined);

function usageOf(raw: unknown, model: string): ChatUsage | undefined {
  if (!isObject(raw)) return undefined;
  const prompt = tokens(raw.prompt_tokens);
  const completion = tokens(raw.completion_tokens);
  if (prompt === undefined || completion === undefined) return undefined;
  return { model, prompt_tokens: prompt, completion_tokens: completion, total_tokens: tokens(raw.total_tokens) ?? prompt + completion };
}

/** OpenAI's `{error: {message}}`, or Ollama's and llama.cpp's `{error: "…"}`. */
function errorMessageOf(json: unknown): string | undefined {
  if (!isObject(json)) return undefined;
  const { error } = json;
  if (typeof error === 'string') return error.slice(0, 500);
  if (isObject(error) && typeof error.message === 'string') return error.message.slice(0, 500);
  return undefined;
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, maxBytes: number, origin: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new ChatModelError('too_large', `the model backend (${origin}) answered more than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
