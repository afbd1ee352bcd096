// The run's knobs, read from the environment once: how long and how hard each scenario runs, which
// database, and which scenarios BENCH_ONLY / BENCH_SKIP select.

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

export const DURATION_S = envInt('BENCH_DURATION', 5, 1, 120);
export const ROUNDS = envInt('BENCH_ROUNDS', 3, 1, 20);
export const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10, 1, 1000);
export const WARMUP_S = envInt('BENCH_WARMUP', 2, 0, 60);
export const DATABASE_URL = process.env.DATABASE_URL || undefined;
export const MODE: 'pglite' | 'postgres' = DATABASE_URL ? 'postgres' : 'pglite';
/** BENCH_ONLY=name,name runs a subset (for working on one scenario); BENCH_SKIP=name,name leaves some out. */
export const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
export const SKIP = process.env.BENCH_SKIP?.split(',').filter(Boolean) ?? [];
export const selected = (name: string) => (!ONLY || ONLY.includes(name)) && !SKIP.includes(name);
export const STARTUP_TIMEOUT_MS = 90_000;
