// Publish/subscribe for live streams (GraphQL subscriptions over WebSocket and SSE). In memory for one
// instance; with REDIS_URL every instance sees every event. Open streams are tracked so that health
// can count them and shutdown can end them. ioredis and the Redis event target load only with REDIS_URL,
// since a single instance never uses them (docs/operations.md, Start).
import { createPubSub, type PubSub } from 'graphql-yoga';
import type Redis from 'ioredis';

type Topics = Record<string, unknown>;

export class EventBus<T extends Topics> {
  private readonly pubsub: PubSub<Record<string, [string, unknown]>>;
  private readonly open = new Set<AsyncIterator<unknown>>();

  private constructor(
    private readonly clients: Redis[],
    pubsub: PubSub<never>,
  ) {
    this.pubsub = pubsub as never;
  }

  /** Connects to Redis (both clients ready before anything subscribes) or stays in memory. */
  static async create<T extends Topics>(redisUrl?: string): Promise<EventBus<T>> {
    if (!redisUrl) return new EventBus<T>([], createPubSub() as never);
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const { createRedisEventTarget } = require('@graphql-yoga/redis-event-target') as typeof import('@graphql-yoga/redis-event-target');
    // Publishes issued in one turn of the event loop go out in one write (the outbox relays a turn's events together).
    const publishClient = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3, enableAutoPipelining: true });
    const subscribeClient = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
    await Promise.all([publishClient.connect(), subscribeClient.connect()]);
    const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
    return new EventBus<T>([publishClient, subscribeClient], createPubSub({ eventTarget }) as never);
  }

  publish<K extends keyof T & string>(topic: K, id: string, payload: T[K]): void {
    this.pubsub.publish(topic, id, payload);
  }

  subscribe<K extends keyof T & string>(topic: K, id: string): AsyncIterableIterator<T[K]> {
    const source = (this.pubsub.subscribe(topic, id) as AsyncIterable<T[K]>)[Symbol.asyncIterator]();
    const open = this.open;
    const tracked: AsyncIterableIterator<T[K]> = {
      next: () => source.next(),
      return: async (value?: unknown) => {
        open.delete(tracked);
        return source.return ? source.return(value) : { done: true, value: undefined };
      },
      throw: async (err?: unknown) => {
        open.delete(tracked);
        if (source.throw) return source.throw(err);
        throw err;
      },
      [Symbol.asyncIterator]() {
        return tracked;
      },
    };
    open.add(tracked);
    return tracked;
  }

  get openStreams(): number {
    return this.open.size;
  }

  get redisConnected(): boolean | undefined {
    return this.clients.length ? this.clients.every((c) => c.status === 'ready') : undefined;
  }

  /** Ends every open stream (subscribers see completion), then disconnects from Redis. */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((it) => it.return?.()));
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
