// The embedded database's thread: PGlite (WebAssembly) runs here, off the server's event loop, and serves
// the PostgreSQL wire protocol on a private unix socket (pglite-mux.ts), so the server reaches it through
// `pg` and Prisma's PrismaPg exactly as it reaches PostgreSQL. Started by pglite-thread.ts (through
// pglite-worker.boot.cjs, which compiles this file); it also runs the checkpoints and the LISTENs, and
// posts each notification to the server's thread.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { collectAfterStart } from '../platform/settle';
import { createPglite, tarball } from './pglite';
import { PgliteMux } from './pglite-mux';
import { plantSeed } from './seed';

/** An embedded database in memory instead of a data directory: the tests' migrated template. */
export interface InMemory {
  /** A dump (PGlite's dumpDataDir, uncompressed) loaded into it. */
  dumpPath: string;
  /**
   * PGlite's WebAssembly, compiled by a process that starts many databases (a test runner's worker) once for all
   * of them: compiling it is about a third of a start's work.
   */
  pgliteModule?: WebAssembly.Module;
}

export interface WorkerData {
  /** The data directory (PGDATA), or none with `memory` for a database in memory. */
  dataDir?: string;
  /** A new data directory is made from the install's migrated seed (seed.ts) when there is one. */
  seed: boolean;
  memory?: InMemory;
  socketPath: string;
  checkpoints: CheckpointPolicy;
}

/**
 * When the worker checkpoints: PGlite has no checkpointer, and a CHECKPOINT holds every statement while it writes,
 * so they are small and often (once `walBytes` of WAL is written, or `maxMs` has passed with anything written)
 * rather than on a clock; an idle database writes none (docs/operations.md, Durability).
 */
export interface CheckpointPolicy {
  walBytes: number;
  maxMs: number;
  /** How often the WAL's position is read (a statement taking its turn like any other). */
  checkMs: number;
}

export type ToWorker = { id: number; op: 'listen'; channel: string } | { id: number; op: 'settle' } | { id: number; op: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'notify'; channel: string; payload: string }
  | { type: 'log'; message: string }
  | { type: 'answer'; id: number; error?: string };

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);

async function main(data: WorkerData): Promise<void> {
  const memory = data.memory;
  // A new data directory is the seed of the current migrations, when the install made one, rather than initdb's.
  const seed = data.dataDir && data.seed ? plantSeed(data.dataDir) : undefined;
  if (seed) post({ type: 'log', message: `a new data directory: made from the migrated seed ${seed}` });
  const db = await createPglite(
    data.dataDir,
    memory ? { loadDataDir: tarball(fs.readFileSync(memory.dumpPath)), ...(memory.pgliteModule ? { pgliteWasmModule: memory.pgliteModule } : {}) } : {},
  );
  const notify = (channel: string, payload: string) => post({ type: 'notify', channel, payload });
  const mux = new PgliteMux(db, { onNotify: notify, log: (message) => post({ type: 'log', message }) });
  fs.rmSync(data.socketPath, { force: true });
  await mux.listen(data.socketPath);
  // PGlite runs no checkpoints of its own: the worker issues them (CheckpointPolicy), and one on close.
  const policy = data.checkpoints;
  const walAt = async () => BigInt((await db.query<{ at: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS at`)).rows[0].at);
  let last = { wal: await walAt(), at: Date.now() };
  const checkpoints = setInterval(
    () =>
      void mux
        .exclusive(async () => {
          const written = (await walAt()) - last.wal;
          if (written < BigInt(policy.walBytes) && (written === 0n || Date.now() - last.at < policy.maxMs)) return;
          await db.exec('CHECKPOINT');
          last = { wal: await walAt(), at: Date.now() };
        })
        .catch(() => {}),
    policy.checkMs,
  );
  checkpoints.unref();
  const listening = new Set<string>();

  port.on('message', (message: ToWorker) => {
    const answer = (work: Promise<unknown>) =>
      work.then(
        () => post({ type: 'answer', id: message.id }),
        (err: Error) => post({ type: 'answer', id: message.id, error: err.message }),
      );
    if (message.op === 'listen') {
      if (listening.has(message.channel)) return void answer(Promise.resolve());
      listening.add(message.channel);
      // Notifications of the worker's own statements come through PGlite's listener; those of the clients'
      // statements, through the multiplexer.
      void answer(mux.exclusive(() => db.listen(message.channel, (payload) => notify(message.channel, payload))));
    } else if (message.op === 'settle') {
      collectAfterStart();
      void answer(Promise.resolve());
    } else if (message.op === 'close') {
      clearInterval(checkpoints);
      void answer(
        (async () => {
          await mux.close();
          // A database in memory (the tests' template) keeps nothing: its checkpoint and shutdown would write
          // pages nobody reads again, so the thread just ends.
          if (data.dataDir) {
            await mux.exclusive(() => db.exec('CHECKPOINT'));
            await db.close();
          }
          fs.rmSync(data.socketPath, { force: true });
        })(),
      );
    }
  });
  post({ type: 'ready' });
}

main(workerData as WorkerData).catch((err: Error) => post({ type: 'failed', message: err.message }));
