// A small Server-Sent Events reader over fetch (what an agent without EventSource would write): parses
// `id`, `event` and `data` lines, and lets a test wait for a number of events or the end of the stream.
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseReader {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Waits until `count` events have arrived in all (or the stream ends, or the time runs out). */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
  /** The body, when the answer was not a stream (an error). */
  body?: any;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  // Every waitFor in progress, woken by each event and by the stream's end.
  const sleepers = new Set<() => void>();
  const wake = () => sleepers.forEach((w) => w());
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      events,
      waitFor: async () => events,
      ended: Promise.resolve(),
      close: () => {},
      body: text ? JSON.parse(text) : undefined,
    };
  }
  let done = false;
  const ended = readSseEvents(res.body as unknown as AsyncIterable<Uint8Array>, (event) => {
    events.push(event);
    wake();
  })
    .catch(() => {
      // aborted by close()
    })
    .then(() => {
      done = true;
      wake();
    });
  return {
    status: res.status,
    headers: res.headers,
    events,
    ended,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count && !done && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        let woken!: () => void;
        await new Promise<void>((resolve) => {
          woken = resolve;
          sleepers.add(woken);
          timer = setTimeout(resolve, deadline - Date.now());
        });
        sleepers.delete(woken);
        clearTimeout(timer);
      }
      return events;
    },
    close: () => abort.abort(),
  };
}

/**
 * Reads a Server-Sent Events body to its end, calling `onEvent` for each event that carries data (comments
 * and blocks without `data` are skipped). Rejects when the body fails (an abort included).
 */
export async function readSseEvents(body: AsyncIterable<Uint8Array>, onEvent: (event: SseEvent) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = { event: 'message', data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'data') {
          event.data += (hasData ? '\n' : '') + value;
          hasData = true;
        }
      }
      if (hasData) onEvent(event);
    }
  }
}
