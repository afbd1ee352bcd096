// Ordered, gap-free live streams of numbered items (1, 2, 3…) that are stored in the database and
// announced on the event bus. Each instance keeps one bus subscription per stream however many readers it
// has; a reader gets the stored items after the one it names (resume), then live items in order. A number
// that arrives out of turn, or never (a lost announcement), is read back from the database, and a sweep
// compares each open stream with the database now and then, so a reader never skips or repeats an item.
import type { EventBus } from './pubsub';
import type { Logger } from './logger';

export interface Sequenced {
  seq: number;
}

/** What the bus carries for a stream: an item, or the stream's end after item `seq`. */
export type Announcement<T extends Sequenced> = T | { end: true; seq: number };

export interface StreamState {
  lastSeq: number;
  ended: boolean;
}

export interface StreamStore<T extends Sequenced> {
  /** Items with seq > after (at most `limit`), in order, stopping before the first that is not ready. */
  load(id: string, after: number, limit: number): Promise<T[]>;
  /**
   * The last seq (every item up to it ready to read: a store whose items can complete out of order stops
   * before the first unready one) and whether the stream ended, for each stream asked about that exists.
   */
  state(ids: string[]): Promise<Map<string, StreamState>>;
}

const LOAD_BATCH = 500;
/** A reader this far behind is cut off (it reconnects and resumes from the database). */
const READER_QUEUE_MAX = 10_000;

/**
 * A stream that can also hand its items to a callback as they come, with no promise per item: a consumer
 * writing to a thousand sockets spends most of its time in the hand-over otherwise.
 */
export interface Listenable<T> {
  /** From now on items go to `onItem` (those already queued first) and the end to `onEnd`. */
  listen(onItem: (item: T) => void, onEnd: () => void): void;
}

export function isListenable<T>(source: unknown): source is Listenable<T> & AsyncIterator<T> {
  return typeof (source as Partial<Listenable<T>>)?.listen === 'function';
}

/**
 * The items of `source` that `keep` accepts. Not an async generator: a generator waiting for an item
 * would hold a reader's return() (a client that left) until the next item came.
 */
export function filtered<T>(source: AsyncIterableIterator<T>, keep: (item: T) => boolean): AsyncIterableIterator<T> {
  return {
    async next() {
      for (;;) {
        const r = await source.next();
        if (r.done || keep(r.value)) return r;
      }
    },
    return: () => source.return?.() ?? Promise.resolve({ value: undefined, done: true }),
    throw: (err?: unknown) => source.throw?.(err) ?? Promise.reject(err),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

class Reader<T extends Sequenced> implements AsyncIterableIterator<T>, Listenable<T> {
  queue: T[] = [];
  waiting?: (r: IteratorResult<T>) => void;
  done = false;
  /** Highest seq handed to this reader (or skipped as before its start). */
  last: number;
  /** Still replaying from the database: live items wait in `held`. */
  catchingUp: boolean;
  held: T[] = [];
  /** The stream ended while this reader was still replaying: it ends once the replay is done. */
  endPending = false;
  private listener?: { onItem: (item: T) => void; onEnd: () => void };

  constructor(
    start: number,
    catchingUp: boolean,
    private readonly onClose: (r: Reader<T>) => void,
  ) {
    this.last = start;
    this.catchingUp = catchingUp;
  }

  /** A live item from the hub (held back while the replay runs). */
  push(item: T): void {
    if (this.done || item.seq <= this.last) return;
    if (this.catchingUp) {
      this.held.push(item);
      return;
    }
    this.deliver(item);
  }

  /** Hands an item on: to the listener, a waiting next(), or the queue. */
  deliver(item: T): void {
    this.last = item.seq;
    if (this.listener) this.listener.onItem(item);
    else if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
    } else if (this.queue.push(item) > READER_QUEUE_MAX) {
      this.finish(true);
    }
  }

  listen(onItem: (item: T) => void, onEnd: () => void): void {
    for (const item of this.queue.splice(0)) onItem(item);
    if (this.done) {
      onEnd();
      return;
    }
    this.listener = { onItem, onEnd };
  }

  /** Ends the stream once what is queued has been read. */
  finish(force = false): void {
    if (this.done) return;
    if (this.catchingUp && !force) {
      this.endPending = true;
      return;
    }
    this.done = true;
    this.onClose(this);
    if (this.listener) this.listener.onEnd();
    else if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.queue.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async return(): Promise<IteratorResult<T>> {
    this.queue = [];
    this.listener = undefined;
    this.finish(true);
    return { value: undefined, done: true };
  }

  async throw(err?: unknown): Promise<IteratorResult<T>> {
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

class Hub<T extends Sequenced> {
  readonly readers = new Set<Reader<T>>();
  /** Highest seq handed to readers. */
  last = 0;
  ended = false;
  /** Item handling is serialised: a gap is filled before anything after it is handed on. */
  private chain: Promise<void> = Promise.resolve();
  private subscription?: AsyncIterableIterator<Announcement<T>>;

  constructor(
    readonly id: string,
    private readonly store: StreamStore<T>,
    private readonly log: Logger,
  ) {}

  listen(subscription: AsyncIterableIterator<Announcement<T>>): void {
    this.subscription = subscription;
    void (async () => {
      try {
        for await (const a of subscription) this.enqueue(a);
      } catch (err) {
        this.log.warn({ stream: this.id, err: (err as Error).message }, 'stream subscription failed');
      }
    })();
  }

  enqueue(a: Announcement<T>): void {
    this.chain = this.chain
      .then(() => this.accept(a))
      .catch((err: unknown) => this.log.warn({ stream: this.id, err: (err as Error).message }, 'stream catch-up failed'));
  }

  private async accept(a: Announcement<T>): Promise<void> {
    if ('end' in a) {
      await this.fill(a.seq);
      this.end();
      return;
    }
    if (a.seq <= this.last) return;
    if (a.seq > this.last + 1) await this.fill(a.seq - 1);
    if (a.seq === this.last + 1) this.hand(a);
  }

  /** Reads what the bus did not bring, up to `upTo`, from the database. */
  async fill(upTo: number): Promise<void> {
    while (this.last < upTo) {
      // Items the store has dropped (purged) are simply not returned: the next ones come instead.
      const items = await this.store.load(this.id, this.last, Math.min(LOAD_BATCH, upTo - this.last));
      // Nothing yet (an item before it is not ready): the sweep brings the rest once the store has it.
      if (!items.length) return;
      for (const item of items) if (item.seq > this.last) this.hand(item);
    }
  }

  private hand(item: T): void {
    this.last = item.seq;
    for (const r of this.readers) r.push(item);
  }

  end(): void {
    this.ended = true;
    for (const r of [...this.readers]) r.finish();
  }

  /** Reads items up to `upTo` from the database in turn with live items (the sweep found them missing). */
  enqueueFill(upTo: number): void {
    this.chain = this.chain
      .then(() => this.fill(upTo))
      .catch((err: unknown) => this.log.warn({ stream: this.id, err: (err as Error).message }, 'stream catch-up failed'));
  }

  close(): void {
    void this.subscription?.return?.();
  }
}

export interface SequencedStreamsOptions {
  /** The bus topic; each stream is keyed by its id. */
  topic: string;
  sweepMs: number;
  log: Logger;
}

export class SequencedStreams<T extends Sequenced> {
  private readonly hubs = new Map<string, Hub<T>>();
  private readonly opening = new Map<string, Promise<Hub<T>>>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly bus: EventBus<Record<string, unknown>>,
    private readonly store: StreamStore<T>,
    private readonly opts: SequencedStreamsOptions,
  ) {}

  start(): void {
    const sweep = () => {
      this.sweep()
        .catch((err: unknown) => this.opts.log.warn({ topic: this.opts.topic, err: (err as Error).message }, 'stream sweep failed'))
        .finally(() => {
          if (this.sweeper) this.sweeper = setTimeout(sweep, this.opts.sweepMs).unref();
        });
    };
    this.sweeper = setTimeout(sweep, this.opts.sweepMs).unref();
  }

  /** Announces an item (or the end) to every instance's readers of stream `id`; call after it is committed. */
  announce(id: string, a: Announcement<T>): void {
    this.bus.publish(this.opts.topic, id, a);
  }

  /**
   * Stream `id` has items up to `seq` in the database (told by the database itself, on every instance):
   * its open readers get them now rather than at the next sweep.
   */
  reached(id: string, seq: number): void {
    const hub = this.hubs.get(id);
    if (hub && seq > hub.last) hub.enqueueFill(seq);
  }

  /**
   * A reader of stream `id`: the stored items after `after` (null: only items from now on), then live ones,
   * until the stream ends or the reader returns.
   */
  async open(id: string, after: number | null, onClose?: () => void): Promise<AsyncIterableIterator<T> & Listenable<T>> {
    const hub = await this.hubFor(id);
    const start = after === null ? hub.last : Math.max(0, after);
    const catchingUp = start < hub.last || hub.ended;
    const reader = new Reader<T>(start, catchingUp, (r) => {
      this.detach(hub, r);
      onClose?.();
    });
    hub.readers.add(reader);
    if (catchingUp) void this.catchUp(hub, reader);
    return reader;
  }

  private async catchUp(hub: Hub<T>, reader: Reader<T>): Promise<void> {
    try {
      for (;;) {
        const items = await this.store.load(hub.id, reader.last, LOAD_BATCH);
        for (const item of items) if (!reader.done) reader.deliver(item);
        if (items.length < LOAD_BATCH) break;
      }
      reader.catchingUp = false;
      const held = reader.held;
      reader.held = [];
      for (const item of held) reader.push(item);
      if (hub.ended || reader.endPending) reader.finish(true);
    } catch (err) {
      this.opts.log.warn({ stream: hub.id, err: (err as Error).message }, 'stream replay failed');
      reader.finish(true);
    }
  }

  private hubFor(id: string): Promise<Hub<T>> {
    const existing = this.hubs.get(id);
    if (existing) return Promise.resolve(existing);
    let pending = this.opening.get(id);
    if (!pending) {
      pending = (async () => {
        const hub = new Hub<T>(id, this.store, this.opts.log);
        // Subscribe before reading the state, so nothing announced in between is missed.
        hub.listen(this.bus.subscribe(this.opts.topic, id) as AsyncIterableIterator<Announcement<T>>);
        const state = (await this.store.state([id])).get(id);
        hub.last = state?.lastSeq ?? 0;
        hub.ended = state?.ended ?? true;
        this.hubs.set(id, hub);
        return hub;
      })().finally(() => this.opening.delete(id));
      this.opening.set(id, pending);
    }
    return pending;
  }

  private detach(hub: Hub<T>, reader: Reader<T>): void {
    hub.readers.delete(reader);
    if (hub.readers.size === 0 && this.hubs.get(hub.id) === hub) {
      this.hubs.delete(hub.id);
      hub.close();
    }
  }

  /** Compares every open stream with the database: catches lost announcements and missed ends. */
  async sweep(): Promise<void> {
    if (!this.hubs.size) return;
    const states = await this.store.state([...this.hubs.keys()]);
    for (const hub of this.hubs.values()) {
      const state = states.get(hub.id);
      if (!state || state.ended) hub.enqueue({ end: true, seq: state?.lastSeq ?? hub.last });
      else if (state.lastSeq > hub.last) hub.enqueueFill(state.lastSeq);
    }
  }

  /** Readers open on this instance (health, tests). */
  get readerCount(): number {
    let n = 0;
    for (const hub of this.hubs.values()) n += hub.readers.size;
    return n;
  }

  async stop(): Promise<void> {
    clearTimeout(this.sweeper);
    this.sweeper = undefined;
    for (const hub of this.hubs.values()) {
      hub.end();
      hub.close();
    }
    this.hubs.clear();
  }
}
