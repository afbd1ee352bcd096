// /metrics's database gauges: a scrape reads the database at most once every few seconds, however many come.
import type { SqlRunner } from '../../src/db/database';
import client from 'prom-client';
import { DEFAULT_METRICS, Metrics } from '../../src/platform/metrics';
import { handMovedPerformanceNow } from '../support/clock';
import { within } from '../support/expect';

/** A database that counts the statements it is asked and answers each with the next numbers. */
function countingDatabase(opts: { fail?: boolean } = {}) {
  const db = {
    statements: 0,
    async query<T>(): Promise<T[]> {
      db.statements++;
      await new Promise((r) => setTimeout(r, 5));
      if (opts.fail) throw new Error('the database is away');
      return [{ database_bytes: 1000 * db.statements, outbox_unpublished: db.statements, deliveries_waiting: 0, attempts_to_fold: 0 }] as T[];
    },
  } satisfies SqlRunner & { statements: number };
  return db;
}

const sizeOf = (text: string) => Number(/^database_size_bytes (\S+)$/m.exec(text)?.[1]);

describe('Metrics.databaseGauges', () => {
  let metrics: Metrics;
  afterEach(() => metrics.close());

  it('serves a flood of scrapes, concurrent and one after another, from one statement', async () => {
    const db = countingDatabase();
    metrics = new Metrics(() => 0);
    metrics.databaseGauges(db, 60_000);
    const concurrent = await Promise.all(Array.from({ length: 50 }, () => metrics.registry.metrics()));
    for (let i = 0; i < 50; i++) concurrent.push(await metrics.registry.metrics());
    expect(db.statements).toBe(1);
    expect(new Set(concurrent.map(sizeOf))).toEqual(new Set([1000]));
  });

  it('reads the database again once the reading is older than its age', async () => {
    const db = countingDatabase();
    const clock = handMovedPerformanceNow();
    try {
      metrics = new Metrics(() => 0);
      metrics.databaseGauges(db, 50);
      expect(sizeOf(await metrics.registry.metrics())).toBe(1000);
      clock.advance(80);
      expect(sizeOf(await metrics.registry.metrics())).toBe(2000);
      expect(db.statements).toBe(2);
    } finally {
      clock.restore();
    }
  });

  it('reads NaN while the database does not answer, and asks it again on the next scrape', async () => {
    const db = countingDatabase({ fail: true });
    metrics = new Metrics(() => 0);
    metrics.databaseGauges(db, 60_000);
    expect(sizeOf(await metrics.registry.metrics())).toBeNaN();
    expect(sizeOf(await metrics.registry.metrics())).toBeNaN();
    expect(db.statements).toBe(2);
  });
});

describe("Metrics' event-loop delay", () => {
  const gauge = (text: string, name: string) => Number(new RegExp(`^nodejs_eventloop_lag_${name}seconds (\\S+)$`, 'm').exec(text)?.[1]);

  it('shows a stall to every scrape that follows it, however many scrapers there are', async () => {
    const metrics = new Metrics(() => 0);
    const meanDelay = async () => gauge(await metrics.registry.metrics(), '');
    try {
      // The monitor measures a stall from its tick before it: it has ticked once it reads a delay.
      await within(5_000, async () => (await meanDelay()) > 0, { what: 'the event-loop monitor ticking' });
      const before = await meanDelay();
      const stalledAt = Date.now();
      while (Date.now() - stalledAt < 150);
      // Its first tick after the stall reads the stall: the readings change.
      await within(5_000, async () => (await meanDelay()) !== before, { what: 'the event-loop monitor reading the stall' });
      const scrapes = [];
      for (let i = 0; i < 3; i++) scrapes.push(await metrics.registry.metrics());
      for (const text of scrapes) {
        expect(gauge(text, 'max_')).toBeGreaterThan(0.14);
        expect(gauge(text, 'p99_')).toBeGreaterThan(0.14);
      }
    } finally {
      metrics.close();
    }
  });
});

it("names prom-client's default metrics (but the two it makes its own), each a module taking the registry", () => {
  expect(Object.keys(DEFAULT_METRICS).sort()).toEqual(client.collectDefaultMetrics.metricsList.filter((m) => m !== 'gc' && m !== 'eventLoopLag').sort());
  for (const load of Object.values(DEFAULT_METRICS)) expect(typeof load()).toBe('function');
});

it('takes METRICS_TOKEN as 16 to 256 visible characters, and refuses a shorter or spaced one at start', () => {
  const { loadConfig } = require('../../src/config') as typeof import('../../src/config');
  expect(loadConfig({ METRICS_TOKEN: 'a-scrape-token-0123' }).metricsToken).toBe('a-scrape-token-0123');
  expect(loadConfig({}).metricsToken).toBeUndefined();
  expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be 16 to 256 visible ASCII characters/);
  expect(() => loadConfig({ METRICS_TOKEN: 'has a space in the middle' })).toThrow(/METRICS_TOKEN/);
});
