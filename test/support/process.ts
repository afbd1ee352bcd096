// The server as an operator runs it: `npm start`'s command (src/server-command.ts: src/server.ts, bundled by
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
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /"port":(\d+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve({ child, port: Number(m[1]), output: () => out, exited });
      }
    }, 50);
    void exited.then(({ code }) => {
      clearInterval(timer);
      if (!/"port":(\d+)/.test(out)) reject(Object.assign(new Error(`server exited with ${code}: ${out}`), { code, out }));
    });
  });
}
