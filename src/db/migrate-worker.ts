// The thread that applies a start's pending migrations (started by applyMigrationsInThread in
// migrate.ts): Prisma's migration engine runs here over its own connections and ends with the thread, so
// that none of it stays in the server's memory.
import { parentPort, workerData } from 'node:worker_threads';
import { PrismaPg } from '@prisma/adapter-pg';
import type { PoolConfig } from 'pg';
import { applyMigrations, type FromMigrations } from './migrate';

async function main(connection: PoolConfig): Promise<FromMigrations> {
  try {
    return { applied: await applyMigrations(new PrismaPg(connection)) };
  } catch (err) {
    // The engine throws its own objects as well as Errors: what it says is kept either way.
    const e = err as { message?: unknown; stack?: unknown };
    const message = typeof e?.message === 'string' ? e.message : typeof err === 'string' ? err : JSON.stringify(err);
    return { error: { message, stack: typeof e?.stack === 'string' ? e.stack : undefined } };
  }
}

void main(workerData as PoolConfig).then((answer) => {
  parentPort!.postMessage(answer);
  process.exit(0);
});
