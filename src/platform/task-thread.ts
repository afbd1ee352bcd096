// CPU-bound work (parsing, type-checking, scoring text) in a worker thread of its own, so the event loop
// keeps serving while it runs, each task bounded in time. Synchronous work cannot be interrupted, so a
// task past its budget ends the thread; the next task starts a fresh one. Tasks run one at a time, in
// order; a bounded number wait.
import { parentPort, Worker } from 'node:worker_threads';

export type TaskThreadFailure = 'timeout' | 'busy' | 'aborted' | 'failed';

export class TaskThreadError extends Error {
  constructor(
    readonly reason: TaskThreadFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TaskThreadError';
  }
}

export interface TaskThreadOptions {
  /** A CommonJS file that loads the thread's handlers (it registers the TypeScript loader, then calls serveTasks). */
  bootPath: string;
  /** Names the thread in messages. */
  name: string;
  /** Tasks that may wait behind the running one; more are refused at once (`busy`). */
  maxWaiting: number;
  /** A thread idle this long ends (its loaded libraries' memory goes back); the next task starts another. */
  idleMs: number;
  /** How long a fresh thread may take to load its libraries before its first task's budget starts. */
  startBudgetMs: number;
}

interface Task {
  id: number;
  task: string;
  payload: unknown;
  budgetMs: number;
  signal?: AbortSignal;
  onAbort?: () => void;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

type FromThread = { type: 'ready' } | { type: 'done'; id: number; ok: true; value: unknown } | { type: 'done'; id: number; ok: false; message: string };

export class TaskThread {
  private worker: Worker | undefined;
  private ready = false;
  private running: Task | undefined;
  private timer: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private readonly waiting: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: TaskThreadOptions) {}

  /** Runs `task` on `payload` within `budgetMs` of the thread's time (waiting for its turn is bounded by `signal`). */
  run<T>(task: string, payload: unknown, opts: { budgetMs: number; signal?: AbortSignal }): Promise<T> {
    if (this.closed) return Promise.reject(new TaskThreadError('failed', `the ${this.opts.name} thread is closed`));
    if (opts.signal?.aborted) return Promise.reject(new TaskThreadError('aborted', `the ${this.opts.name} task was cancelled`));
    if (this.waiting.length >= this.opts.maxWaiting) {
      return Promise.reject(new TaskThreadError('busy', `the ${this.opts.name} thread has ${this.waiting.length} tasks waiting already`));
    }
    return new Promise<T>((resolve, reject) => {
      const t: Task = { id: this.nextId++, task, payload, budgetMs: opts.budgetMs, signal: opts.signal, resolve: resolve as (v: unknown) => void, reject };
      if (opts.signal) {
        t.onAbort = () => this.abort(t);
        opts.signal.addEventListener('abort', t.onAbort, { once: true });
      }
      this.waiting.push(t);
      this.pump();
    });
  }

  /** Ends the thread; tasks waiting or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    const failed = new TaskThreadError('failed', `the ${this.opts.name} thread is closed`);
    for (const t of this.waiting.splice(0)) this.settle(t, failed);
    if (this.running) this.settle(this.running, failed);
    this.running = undefined;
    await this.stop();
  }

  private pump(): void {
    if (this.running || this.waiting.length === 0 || this.closed) return;
    const worker = this.worker ?? this.start();
    if (!this.ready) return; // the thread's 'ready' pumps again
    clearTimeout(this.idle);
    const t = this.waiting.shift()!;
    this.running = t;
    this.timer = setTimeout(() => this.expire(t), t.budgetMs);
    // A task's caller waits on it; an idle thread holds nothing up.
    worker.ref();
    worker.postMessage({ id: t.id, task: t.task, payload: t.payload });
  }

  private start(): Worker {
    const worker = new Worker(this.opts.bootPath, { name: this.opts.name });
    this.worker = worker;
    this.ready = false;
    const startTimer = setTimeout(() => {
      if (this.worker === worker && !this.ready) this.crashed(worker, `did not start within ${this.opts.startBudgetMs} ms`);
    }, this.opts.startBudgetMs);
    worker.on('message', (message: FromThread) => {
      if (this.worker !== worker) return;
      if (message.type === 'ready') {
        clearTimeout(startTimer);
        this.ready = true;
        this.pump();
        return;
      }
      const t = this.running;
      if (!t || t.id !== message.id) return;
      clearTimeout(this.timer);
      this.running = undefined;
      this.settle(
        t,
        message.ok ? undefined : new TaskThreadError('failed', `the ${this.opts.name} task failed: ${message.message}`),
        message.ok ? message.value : undefined,
      );
      this.afterTask();
    });
    worker.on('error', (err) => this.worker === worker && this.crashed(worker, `failed: ${err.message}`));
    worker.on('exit', (code) => this.worker === worker && this.crashed(worker, `exited (code ${code})`));
    // A thread that is not running a task never keeps the process alive (unref after the listeners:
    // attaching one refs the thread's port again).
    worker.unref();
    return worker;
  }

  private afterTask(): void {
    if (this.waiting.length) this.pump();
    else {
      this.worker?.unref();
      clearTimeout(this.idle);
      this.idle = setTimeout(() => void this.stop(), this.opts.idleMs);
      this.idle.unref();
    }
  }

  /** The running task took its whole budget: the thread ends with it. */
  private expire(t: Task): void {
    if (this.running !== t) return;
    this.running = undefined;
    this.settle(t, new TaskThreadError('timeout', `the ${this.opts.name} task took longer than ${t.budgetMs} ms`));
    void this.stop();
    this.pump();
  }

  private abort(t: Task): void {
    const cancelled = new TaskThreadError('aborted', `the ${this.opts.name} task was cancelled`);
    const i = this.waiting.indexOf(t);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.settle(t, cancelled);
    } else if (this.running === t) {
      clearTimeout(this.timer);
      this.running = undefined;
      this.settle(t, cancelled);
      void this.stop();
      this.pump();
    }
  }

  private crashed(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    const wasReady = this.ready;
    this.worker = undefined;
    this.ready = false;
    void worker.terminate();
    const failed = new TaskThreadError('failed', `the ${this.opts.name} thread ${why}`);
    if (this.running) this.settle(this.running, failed);
    this.running = undefined;
    clearTimeout(this.timer);
    // Tasks waiting for a thread that never started fail with it; behind one that served, they start another.
    if (!wasReady) for (const t of this.waiting.splice(0)) this.settle(t, failed);
    else this.pump();
  }

  private settle(t: Task, err: Error | undefined, value?: unknown): void {
    if (t.onAbort) t.signal!.removeEventListener('abort', t.onAbort);
    if (err) t.reject(err);
    else t.resolve(value);
  }

  private async stop(): Promise<void> {
    clearTimeout(this.idle);
    clearTimeout(this.timer);
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    if (worker) await worker.terminate();
  }
}

/**
 * The thread's side: answers each task with its handler's value (which must be structured-cloneable) or its
 * error's message. `load` runs first (loading the libraries is not counted against any task's budget).
 */
export function serveTasks(handlers: Record<string, (payload: never) => unknown>, load: () => void = () => {}): void {
  if (!parentPort) throw new Error('serveTasks runs in a worker thread');
  const port = parentPort;
  load();
  port.on('message', ({ id, task, payload }: { id: number; task: string; payload: unknown }) => {
    const handler = Object.prototype.hasOwnProperty.call(handlers, task) ? handlers[task] : undefined;
    try {
      if (!handler) throw new Error(`no task ${task}`);
      port.postMessage({ type: 'done', id, ok: true, value: handler(payload as never) });
    } catch (err) {
      port.postMessage({ type: 'done', id, ok: false, message: err instanceof Error ? err.message : String(err) });
    }
  });
  port.postMessage({ type: 'ready' });
}
