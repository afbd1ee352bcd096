// The embedded database's worker and its multiplexer (src/db/pglite-thread.ts, pglite-mux.ts): many `pg`
// connections share PGlite's one session without ever seeing each other's statements, transactions stay
// whole, and notifications reach the server's thread. Real PGlite in a real worker, real `pg` clients.
import pg from 'pg';
import { startPgliteThread, type PgliteThread } from '../../src/db/pglite-thread';
import { onPostgres } from '../support/server';
import { seedPath } from '../../src/db/seed';
import { quiet, within } from '../support/expect';

const describeEmbedded = onPostgres() ? describe.skip : describe;

describeEmbedded('the embedded database behind its socket', () => {
  let thread: PgliteThread;
  const clients: pg.Client[] = [];

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client(thread.connection);
    client.on('error', () => {});
    await client.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    thread = await startPgliteThread({
      memory: { dumpPath: seedPath() },
      checkpoints: { walBytes: 4 << 20, maxMs: 60_000, checkMs: 1_000 },
      log: () => {},
    });
    const setup = await connect();
    await setup.query('CREATE TABLE mux_t (id serial PRIMARY KEY, conn int NOT NULL, note text)');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await thread.close();
  });

  it("gives each of many connections its own answers, even when a statement's message spans several reads", async () => {
    const conns = await Promise.all(Array.from({ length: 8 }, () => connect()));
    const big = 'x'.repeat(256 * 1024);
    const wrong: string[] = [];
    await Promise.all(
      conns.map(async (c, i) => {
        for (let k = 0; k < 25; k++) {
          // A different statement per connection, and on some turns a parameter far larger than one read.
          const param = k % 5 === 0 ? `${i}:${big}` : `${i}:${k}`;
          const { rows } = await c.query(`SELECT $1::text AS p, ${i} AS conn, length($1::text) AS n`, [param]);
          if (rows[0].conn !== i || rows[0].p !== param || rows[0].n !== param.length) wrong.push(`${i}/${k}`);
        }
      }),
    );
    expect(wrong).toEqual([]);
  });

  it("keeps an open transaction's session to its connection: others wait, and see only what it committed", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('BEGIN');
    await a.query('INSERT INTO mux_t (conn, note) VALUES (1, $1)', ['uncommitted']);
    let answered = false;
    const seen = b.query<{ n: number }>("SELECT count(*)::int AS n FROM mux_t WHERE note = 'uncommitted'").then((r) => {
      answered = true;
      return r.rows[0].n;
    });
    // Nothing says a statement is waiting rather than slow: a window in which a free one answers many times over.
    await quiet();
    expect(answered).toBe(false);
    await a.query('COMMIT');
    expect(await seen).toBe(1);
  });

  it('rolls back the transaction of a connection that goes away, and lets the others in', async () => {
    const a = await connect();
    await a.query('BEGIN');
    await a.query('INSERT INTO mux_t (conn, note) VALUES (2, $1)', ['abandoned']);
    (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const b = await connect();
    const { rows } = await b.query<{ n: number }>("SELECT count(*)::int AS n FROM mux_t WHERE note = 'abandoned'");
    expect(rows[0].n).toBe(0);
  });

  it("keeps a failed statement's error on its own connection", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const results = await Promise.allSettled([a.query('SELECT 1 / 0'), b.query('SELECT 42 AS n'), a.query('SELECT 7 AS n')]);
    expect(results[0].status).toBe('rejected');
    expect(results[1]).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 42 }] } });
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 7 }] } });
  });

  it('lets every connection prepare the same statement name, each with its own, and forgets them when it goes', async () => {
    const conns = await Promise.all(Array.from({ length: 4 }, () => connect()));
    const answers = await Promise.all(
      conns.map(async (c, i) => {
        // The same name and text on every connection at once, run several times (prepared once, then bound).
        const seen: number[] = [];
        for (let k = 0; k < 6; k++)
          seen.push((await c.query<{ n: number }>({ name: 'mux_named', text: 'SELECT $1::int * 10 AS n', values: [i * 100 + k] })).rows[0].n);
        return seen;
      }),
    );
    expect(answers).toEqual(conns.map((_, i) => Array.from({ length: 6 }, (_, k) => (i * 100 + k) * 10)));
    // A second name on one connection does not disturb the first.
    const [a] = conns;
    expect((await a.query({ name: 'mux_other', text: 'SELECT $1::text AS t', values: ['x'] })).rows).toEqual([{ t: 'x' }]);
    expect((await a.query({ name: 'mux_named', text: 'SELECT $1::int * 10 AS n', values: [3] })).rows).toEqual([{ n: 30 }]);

    const observer = await connect();
    const prepared = async () => (await observer.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0].n;
    expect(await prepared()).toBe(5);
    await Promise.all(conns.map((c) => c.end()));
    await within(2000, async () => (await prepared()) === 0);
  });

  it("brings a notification of a connection's transaction to the server's thread once, when it commits", async () => {
    const heard: string[] = [];
    const hear = (payload: string) => heard.push(payload);
    await thread.listen('mux_test_channel', hear);
    // A round trip to the worker (listening again is answered at once): what it posted before has arrived.
    const roundTrip = () => thread.listen('mux_test_channel', hear);
    const a = await connect();
    await a.query('BEGIN');
    await a.query("SELECT pg_notify('mux_test_channel', 'one')");
    await roundTrip();
    expect(heard).toEqual([]);
    await a.query('COMMIT');
    await roundTrip();
    expect(heard).toEqual(['one']);
  });
});

describeEmbedded("the embedded database's checkpoints", () => {
  // Where the last checkpoint's redo starts: it moves exactly when a checkpoint is taken.
  const redo = async (c: pg.Client) => (await c.query<{ redo: string }>('SELECT redo_lsn::text AS redo FROM pg_control_checkpoint()')).rows[0].redo;

  async function withThread(policy: { walBytes: number; maxMs: number; checkMs: number }, run: (c: pg.Client) => Promise<void>) {
    const thread = await startPgliteThread({ memory: { dumpPath: seedPath() }, checkpoints: policy, log: () => {} });
    const c = new pg.Client(thread.connection);
    await c.connect();
    try {
      await c.query('CREATE TABLE ck_t (id serial PRIMARY KEY, note text NOT NULL)');
      await run(c);
    } finally {
      await c.end().catch(() => {});
      await thread.close();
    }
  }

  it('checkpoints once enough WAL has been written, long before its longest interval', async () => {
    await withThread({ walBytes: 256 * 1024, maxMs: 600_000, checkMs: 50 }, async (c) => {
      const before = await redo(c);
      await c.query(`INSERT INTO ck_t (note) SELECT repeat('x', 500) FROM generate_series(1, 2000)`);
      await within(5_000, async () => (await redo(c)) !== before);
    });
  });

  it('checkpoints what little was written once its longest interval has passed, and nothing while idle', async () => {
    await withThread({ walBytes: 64 * 1024 * 1024, maxMs: 300, checkMs: 50 }, async (c) => {
      // The table's creation is checkpointed once the interval passes; then, idle for longer than the
      // interval, no checkpoint follows (a worker checkpointing on a clock would never get here).
      // Idle for half as long again as the interval (the worker keeps real time): no checkpoint in it.
      await within(5_000, async () => {
        const first = await redo(c);
        await quiet(450);
        return (await redo(c)) === first;
      });
      const idle = await redo(c);
      await c.query(`INSERT INTO ck_t (note) VALUES ('a little')`);
      await within(5_000, async () => (await redo(c)) !== idle);
    });
  });
});
