// Starting the embedded database: its data directory's lock, then PGlite's thread (pglite-thread.ts). A module of its
// own, and a light one, so the server starts the thread before loading the rest of its modules (app/server.ts) and
// PGlite's start runs beside them (docs/operations.md, Start).
import fs from 'node:fs';
import path from 'node:path';
import { connectionOf, newSocketDir, startPgliteThread, type PgliteThread } from './pglite-thread';
import type { CheckpointPolicy, InMemory } from './pglite-worker';

export class DataDirLockedError extends Error {}

/** The embedded database being started: what openDatabase (database.ts) finishes opening. */
export interface EmbeddedStart {
  /** Releases the data directory's lock. */
  unlock(): void;
  /** Starts another thread on the same data directory (after migrations, see openDatabase). */
  start(): Promise<PgliteThread>;
  /** The first thread, starting. */
  first: Promise<PgliteThread>;
  /** What `pg` connects to the first thread with, known before it has started. */
  connection: PgliteThread['connection'];
}

/**
 * Takes the data directory's lock (or none for a database in memory, `memory`) and starts the
 * thread. Throws DataDirLockedError when another live process holds the lock.
 */
export function startEmbedded(opts: { dataDir: string; seed: boolean; memory?: InMemory; log(message: string): void }): EmbeddedStart {
  const unlock = opts.memory ? () => {} : lockDataDir(opts.dataDir);
  const start = (socketDir?: string) =>
    startPgliteThread({
      dataDir: opts.memory ? undefined : path.join(opts.dataDir, 'pgdata'),
      seed: opts.seed,
      memory: opts.memory,
      socketDir,
      checkpoints: CHECKPOINTS,
      log: opts.log,
    });
  const socketDir = newSocketDir();
  const first = start(socketDir);
  // Awaited by openDatabase, which reports a failure; not an unhandled rejection meanwhile.
  first.catch(() => {});
  return { unlock, start: () => start(), first, connection: connectionOf(socketDir) };
}

/**
 * Two processes on one PGlite data directory corrupt it silently, so a lock file names its owner by pid and
 * process start time: a crashed owner's pid reused by another program does not block a restart
 * (docs/operations.md, The data directory's lock).
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'marketplace.lock');
  const mine = JSON.stringify({ pid: process.pid, started: processStartTime(process.pid) ?? null });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, mine, { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === mine) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readLockOwner(fs.readFileSync(lockPath, 'utf8'));
      if (owner && owner.pid !== process.pid && holdsLock(owner)) {
        throw new DataDirLockedError(
          `DATA_DIR ${dataDir} is in use by another marketplace process (pid ${owner.pid}). ` +
            'Stop it, or give this instance its own DATA_DIR, or use DATABASE_URL to share one PostgreSQL.',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`could not take the lock on DATA_DIR ${dataDir}`);
}

interface LockOwner {
  pid: number;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat), when known. */
  started: string | null;
}

/** The lock's owner: `{"pid":…,"started":…}`, or a bare pid (written by earlier versions). */
function readLockOwner(text: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed === 'object' && parsed && Number.isInteger(parsed.pid))
      return { pid: parsed.pid!, started: typeof parsed.started === 'string' ? parsed.started : null };
  } catch {
    // a bare pid
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? { pid, started: null } : undefined;
}

/** Whether the process named by a lock still holds it: alive, and the same process that wrote it. */
function holdsLock(owner: LockOwner): boolean {
  if (!isAlive(owner.pid)) return false;
  const started = processStartTime(owner.pid);
  if (started === undefined) return true; // no /proc: a live pid is all there is to go by
  if (owner.started !== null) return owner.started === started;
  // A bare pid from an earlier version: held only by a process that is a marketplace server.
  return isMarketplaceServer(owner.pid);
}

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined without /proc. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isMarketplaceServer(pid: number): boolean {
  try {
    return /src\/server\.ts|src\/start\.cjs|agent-capability-marketplace/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
  } catch {
    return true;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite runs no checkpoints of its own: its worker issues them, small and often (CheckpointPolicy), and on close. */
const CHECKPOINTS: CheckpointPolicy = { walBytes: 4 * 1024 * 1024, maxMs: 60_000, checkMs: 1_000 };
