// The server as an operator runs it: `npm start`'s command (src/server-command.ts: app/server.ts, bundled by
// src/start.cjs) in a process of its own, on an embedded database in `dataDir` (or the environment's),
// answering once it logs its port.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SERVER_ARGS } from '../../src/server-command';

const root = path.resolve(__dirname, '../..');

export interface Running {
  child: ChildProcess;
  port: number;
  /** Everything it printed so far. */
  output: () => string;
  /**
   * Resolves with the first match of `pattern` in what it prints from this call on, as the output arrives;
   * rejects after `timeoutMs`, or when it exits first, with the end of what it printed.
   */
  printed: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the server on PGlite in `dataDir`; rejects (with `code` and `out`) if it exits before listening. */
export function launchServer(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // Each wait on the output, told of every chunk that arrives.
  const watchers = new Set<() => void>();
  const take = (d: Buffer) => {
    out += d;
    for (const look of watchers) look();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const watch = (from: number, pattern: RegExp, timeoutMs: number | undefined, gone: (code: number | null) => Error) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const finish = (settle: () => void) => {
        watchers.delete(look);
        clearTimeout(deadline);
        settle();
      };
      const look = () => {
        const m = pattern.exec(out.slice(from));
        if (m) finish(() => resolve(m));
      };
      const late = () => finish(() => reject(new Error(`${pattern} not printed within ${timeoutMs} ms: ${out.slice(from).slice(-3000)}`)));
      const deadline = timeoutMs === undefined ? undefined : setTimeout(late, timeoutMs);
      watchers.add(look);
      look();
      // Once its pipes have closed, all it printed has been read: it never will.
      void closed.then(() => watchers.has(look) && finish(() => reject(gone(child.exitCode))));
    });
  const printed = (pattern: RegExp, timeoutMs = 10_000) =>
    watch(out.length, pattern, timeoutMs, (code) => new Error(`exited with ${code} before printing ${pattern}: ${out.slice(-3000)}`));
  return watch(0, /"port":(\d+)/, undefined, (code) => Object.assign(new Error(`server exited with ${code}: ${out}`), { code, out })).then((m) => ({
    child,
    port: Number(m[1]),
    output: () => out,
    printed,
    exited,
  }));
}
