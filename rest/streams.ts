// REST event streams: a route whose document is a GraphQL subscription is answered as Server-Sent Events,
// or, when the client asks to upgrade, as a plain WebSocket of JSON messages. Both run the subscription
// itself (its subscribe resolver checks the caller and opens the source), then turn each source event into
// the document's selection. Readers of one source share the event object, so the selection is computed once
// per event and variables, not once per reader: with a thousand readers that is most of the cost.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Ctx, Services } from '../src/domain/context';
import { problemFromError } from '../src/platform/errors';
import { BODY_LIMIT_BYTES } from '../src/platform/http';
import { isListenable } from '../src/platform/sequenced-streams';

/** One event as written to a stream. */
export interface Frame {
  id?: string;
  event: string;
  /** The selection's JSON. */
  json: string;
  /** The same, as an SSE message, encoded once for every reader's socket. */
  sse: Buffer;
}

/**
 * The stream's body runs to the connection's close, not in chunks (`useChunkedEncodingByDefault` off): no request
 * follows a stream on its connection, and each event is then one write of the shared frame per reader instead of four
 * (docs/streaming.md).
 */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'close',
  'X-Accel-Buffering': 'no',
};
/** A reader this far behind on its socket is cut off; it reconnects and resumes from Last-Event-ID. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

function sseMessage(event: string, json: string, id?: string): Buffer {
  return Buffer.from(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${json}\n\n`);
}

/** What the bridge runs of a subscription's route, as rest/runner.ts compiles it. */
interface SubscriptionRoute {
  /** The route (`GET /streaming/sessions/:id/events`): readers of one route and variables share frames. */
  label: string;
  /** The response key of the one root field: each frame is its value. */
  rootKey: string;
  subscribe(ctx: Ctx, variables: Record<string, unknown>): Promise<AsyncIterable<unknown> | ExecutionResult>;
  execute: CompiledQuery['query'];
}

export class StreamBridge {
  /**
   * Source event → (route and variables) → frame. Every reader of an event asks in the same tick: an
   * answer still being computed is shared as its promise.
   */
  private readonly frames = new WeakMap<object, Map<string, Frame | Promise<Frame>>>();
  // Readers send nothing but control frames: a frame larger than a request body closes the socket (1009).
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: BODY_LIMIT_BYTES });
  private readonly open = new Set<{ close(): void }>();

  constructor(private readonly services: Services) {}

  /** Runs the subscription: its frames, or the error of its subscribe step (as a problem). */
  async subscribe(compiled: SubscriptionRoute, ctx: Ctx, variables: Record<string, unknown>): Promise<FrameSource | { problem: GraphQLError }> {
    const source = await compiled.subscribe(ctx, variables);
    if (!(Symbol.asyncIterator in source)) return { problem: (source as ExecutionResult).errors![0] };
    const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const cacheKey = `${compiled.label} ${JSON.stringify(variables)}`;
    const compute = (payload: unknown): Frame | Promise<Frame> => {
      const result = compiled.execute(payload, ctx, variables) as ExecutionResult | Promise<ExecutionResult>;
      return result instanceof Promise ? result.then((r) => this.toFrame(compiled, r, ctx)) : this.toFrame(compiled, result, ctx);
    };
    const frameOf = (payload: unknown): Frame | Promise<Frame> => {
      if (typeof payload !== 'object' || payload === null) return compute(payload);
      let byKey = this.frames.get(payload);
      if (!byKey) this.frames.set(payload, (byKey = new Map()));
      let frame = byKey.get(cacheKey);
      if (!frame) {
        frame = compute(payload);
        byKey.set(cacheKey, frame);
        if (frame instanceof Promise)
          void frame.then(
            (f) => byKey.set(cacheKey, f),
            () => byKey.delete(cacheKey),
          );
      }
      return frame;
    };
    return new FrameSource(iterator, frameOf, this.services);
  }

  private toFrame(compiled: SubscriptionRoute, result: ExecutionResult, ctx: Ctx): Frame {
    if (result.errors?.length) {
      const problem = problemFromError(this.services.config.publicBaseUrl, result.errors[0], ctx.requestId);
      const json = JSON.stringify(problem);
      return { event: 'error', json, sse: sseMessage('error', json) };
    }
    const value = (result.data as Record<string, unknown>)[compiled.rootKey] as Record<string, unknown>;
    const json = JSON.stringify(value);
    const id = value && value.id !== undefined && value.id !== null ? String(value.id) : undefined;
    const event = typeof value?.event === 'string' ? value.event : 'message';
    return { id, event, json, sse: sseMessage(event, json, id) };
  }

  /** Writes the frames as SSE until the source ends (then `event: end`) or the client goes. */
  serveSse(frames: FrameSource, req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    res.useChunkedEncodingByDefault = false;
    res.writeHead(200, { ...headers, ...SSE_HEADERS });
    // Reconnect soon after a drop; the browser's EventSource then sends Last-Event-ID.
    res.write('retry: 2000\n: connected\n\n');
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      this.open.delete(handle);
      frames.stop();
      res.end();
    };
    // At shutdown the reader is told to reconnect (to another instance), resuming with Last-Event-ID.
    const handle = {
      close: () => {
        if (!closed) res.write('retry: 1000\nevent: reconnect\ndata: {}\n\n');
        close();
      },
    };
    this.open.add(handle);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), this.services.config.sseKeepAliveMs);
    keepAlive.unref();
    req.once('close', close);
    frames.start(
      (frame) => {
        if (closed) return;
        res.write(frame.sse);
        // An error ends the stream; so does a reader too far behind (it resumes with Last-Event-ID).
        if (frame.event === 'error' || res.writableLength > MAX_BUFFERED_BYTES) close();
      },
      () => {
        if (!closed) res.write('event: end\ndata: {}\n\n');
        close();
      },
    );
  }

  /** Upgrades the request to a WebSocket and sends each frame as one JSON text message; closes 1000 at the end. */
  serveWebSocket(frames: FrameSource, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      let closed = false;
      const close = (code = 1000, reason = 'stream ended') => {
        if (closed) return;
        closed = true;
        this.open.delete(handle);
        frames.stop();
        if (ws.readyState === ws.OPEN) ws.close(code, reason);
      };
      // 1012 Service Restart: reconnect (to another instance), resuming with ?after=.
      const handle = { close: () => close(1012, 'server restarting: reconnect') };
      this.open.add(handle);
      ws.on('close', () => close());
      ws.on('error', () => close());
      // Clients send nothing; anything they do send is ignored.
      frames.start(
        (frame) => {
          if (closed) return;
          ws.send(frame.json);
          if (frame.event === 'error') close(1011, 'stream failed');
          else if (ws.bufferedAmount > MAX_BUFFERED_BYTES) close(1013, 'reader too slow: reconnect with ?after=');
        },
        () => close(1000, 'session ended'),
      );
    });
  }

  get openStreams(): number {
    return this.open.size;
  }

  /** Ends every open stream, telling its reader to reconnect (shutdown). */
  close(): void {
    for (const s of [...this.open]) s.close();
    this.wss.close();
  }
}

/**
 * The frames of one subscription, handed to a callback in order. A source that can be listened to (our
 * sequenced streams) hands its events over directly; any other is read as an async iterator. A frame still
 * being computed holds the ones after it back, so order is kept.
 */
export class FrameSource {
  private stopped = false;

  constructor(
    private readonly iterator: AsyncIterator<unknown>,
    private readonly frameOf: (payload: unknown) => Frame | Promise<Frame>,
    private readonly services: Pick<Services, 'log'>,
  ) {}

  start(onFrame: (frame: Frame) => void, onEnd: () => void): void {
    let chain: Promise<void> | undefined;
    let queued = 0;
    const emit = (payload: unknown) => {
      const frame = this.frameOf(payload);
      if (!chain && !(frame instanceof Promise)) {
        onFrame(frame);
        return;
      }
      queued += 1;
      chain = (chain ?? Promise.resolve())
        .then(() => frame)
        .then(onFrame, (err: unknown) => this.services.log.warn({ err: (err as Error).message }, 'event stream frame failed'))
        .finally(() => {
          if (--queued === 0) chain = undefined;
        });
    };
    const end = () => {
      if (chain) void chain.then(onEnd);
      else onEnd();
    };
    if (isListenable(this.iterator)) {
      this.iterator.listen(emit, end);
      return;
    }
    void (async () => {
      try {
        for (;;) {
          const r = await this.iterator.next();
          if (r.done || this.stopped) break;
          emit(r.value);
        }
      } catch (err) {
        this.services.log.warn({ err: (err as Error).message }, 'event stream failed');
      }
      end();
    })();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.iterator.return?.();
  }
}
