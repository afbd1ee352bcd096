// The server's side of the embedded database's worker (pglite-worker.ts): starts it on a private socket,
// hears its notifications, and closes it. A worker that dies fails every waiting call at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CheckpointPolicy, FromWorker, InMemory, ToWorker, WorkerData } from './pglite-worker';

/** The socket's port number: `pg` finds the socket as `<host directory>/.s.PGSQL.<port>`. */
const SOCKET_PORT = 5432;

export interface PgliteThread {
  /** What `pg` connects with. */
  connection: { host: string; port: number; user: string; database: string };
  /** LISTENs on `channel` in the worker; `onNotify` gets each payload. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<void>;
  /** The server has started: the worker collects what its start left (src/platform/settle.ts). */
  settle(): void;
  /** Told once if the worker stops other than by close(). */
  onDeath(handler: (err: Error) => void): void;
  /** Checkpoints, closes the database and ends the worker. */
  close(): Promise<void>;
}

/**
 * The worker's young generation, in MB (V8 makes its semi-spaces a third of it). Its JavaScript's allocations die
 * at once, so a small nursery serves as well as V8's default, which the start grew and which then stayed resident
 * (docs/operations.md, Footprint).
 */
const WORKER_YOUNG_GENERATION_MB = 6;

/** A new directory for a thread's socket: only this user may enter it, so nobody else can connect to the database. */
export function newSocketDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mkt-db-'));
}

/** What `pg` connects with to the thread whose socket is in `socketDir`. */
export function connectionOf(socketDir: string): PgliteThread['connection'] {
  return { host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' };
}

/** Starts the thread, its socket in `socketDir` (a new one by default; it is removed when the thread ends). */
export async function startPgliteThread(opts: {
  dataDir?: string;
  /** A new data directory is made from the install's migrated seed (seed.ts) when there is one (only when true). */
  seed?: boolean;
  memory?: InMemory;
  socketDir?: string;
  checkpoints: CheckpointPolicy;
  log(message: string): void;
}): Promise<PgliteThread> {
  const socketDir = opts.socketDir ?? newSocketDir();
  const data: WorkerData = {
    dataDir: opts.dataDir,
    seed: opts.seed ?? false,
    memory: opts.memory,
    socketPath: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
    checkpoints: opts.checkpoints,
  };
  const worker = new Worker(path.join(__dirname, 'pglite-worker.boot.cjs'), {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  const handlers = new Map<string, (payload: string) => void>();
  const waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
  const deathHandlers: ((err: Error) => void)[] = [];
  let nextId = 1;
  let dead: Error | undefined;
  let closing = false;

  const ready = new Promise<void>((resolve, reject) => {
    const die = (err: Error) => {
      if (dead) return;
      dead = err;
      reject(err);
      for (const w of waiting.values()) w.reject(err);
      waiting.clear();
      fs.rmSync(socketDir, { recursive: true, force: true });
      if (!closing) for (const h of deathHandlers) h(err);
    };
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') resolve();
      else if (message.type === 'failed') die(new Error(`the embedded database did not open: ${message.message}`));
      else if (message.type === 'notify') handlers.get(message.channel)?.(message.payload);
      else if (message.type === 'log') opts.log(`embedded database: ${message.message}`);
      else if (message.type === 'answer') {
        const w = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.error) w?.reject(new Error(message.error));
        else w?.resolve();
      }
    });
    worker.on('error', (err) => die(new Error(`the embedded database's thread failed: ${err.message}`)));
    worker.on('exit', (code) => die(new Error(`the embedded database's thread exited (code ${code})`)));
  });

  const ask = (message: { op: 'listen'; channel: string } | { op: 'settle' } | { op: 'close' }): Promise<void> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id } satisfies ToWorker);
    });
  };

  try {
    await ready;
  } catch (err) {
    await worker.terminate().catch(() => {});
    throw err;
  }
  return {
    connection: connectionOf(socketDir),
    async listen(channel, onNotify) {
      handlers.set(channel, onNotify);
      await ask({ op: 'listen', channel });
    },
    settle() {
      ask({ op: 'settle' }).catch(() => {});
    },
    onDeath(handler) {
      deathHandlers.push(handler);
    },
    async close() {
      closing = true;
      try {
        await ask({ op: 'close' });
      } finally {
        await worker.terminate().catch(() => {});
        fs.rmSync(socketDir, { recursive: true, force: true });
      }
    },
  };
}
