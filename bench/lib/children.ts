// Child processes of the benchmark: spawning TypeScript entry points under tsx, remembering their
// recent output for error reports, waiting for readiness, and stopping every one of them on the way out.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Secrets a child may log (the server prints a generated admin key at warn level). */
const SECRET = /\b(key_[a-z]+_)[0-9A-Za-z]{8,}/g;
const TAIL_LINES = 40;

export class Child {
  readonly exited: Promise<number | null>;
  private readonly tail: string[] = [];
  private readonly lineListeners = new Set<(line: string) => void>();
  exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    for (const stream of [proc.stdout, proc.stderr]) {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) this.record(line);
      });
    }
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exitCode = code;
        this.record(`[exited with ${code ?? signal}]`);
        resolve(code);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  private record(line: string) {
    if (!line) return;
    this.tail.push(line.replace(SECRET, '$1[REDACTED]'));
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    for (const listener of this.lineListeners) listener(line);
  }

  /** The last lines the child wrote, for error messages. */
  recentOutput(): string {
    return this.tail.map((l) => `    [${this.name}] ${l}`).join('\n') || `    [${this.name}] (no output)`;
  }

  /** Resolves with the first output line `match` accepts (returning a value); rejects on exit or timeout. */
  waitForLine<T>(match: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.lineListeners.delete(listener);
        fn();
      };
      const listener = (line: string) => {
        const value = match(line);
        if (value !== undefined) done(() => resolve(value));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name} was not ready within ${timeoutMs} ms\n${this.recentOutput()}`))), timeoutMs);
      this.lineListeners.add(listener);
      void this.exited.then(() => done(() => reject(new Error(`${this.name} exited before it was ready\n${this.recentOutput()}`))));
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

const children = new Set<Child>();

/** Starts `node [nodeArgs] --import tsx <entry>` from the repository root with the given environment. */
export function spawnTs(name: string, entry: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Child {
  return spawnNode(name, [...nodeArgs, '--import', 'tsx', entry], env);
}

/** Starts `node <args>` from the repository root (or `cwd`: another checkout's) with the given environment. */
export function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Child {
  const proc = spawn(process.execPath, args, {
    cwd,
    env,
    // stdin stays open as a pipe: the peers exit when it closes, i.e. when this process dies.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const child = new Child(name, proc);
  children.add(child);
  return child;
}

/** Stops every child still running, in parallel. */
export async function stopAll(graceMs = 12_000): Promise<void> {
  await Promise.all([...children].map((c) => c.stop(graceMs)));
}

/** Last resort at process exit (synchronous): kill whatever is left. */
export function killAllNow(): void {
  for (const child of children) if (child.running) child.proc.kill('SIGKILL');
}

/** A loopback port that was free a moment ago (for the server, which cannot report an ephemeral one at LOG_LEVEL=warn). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
