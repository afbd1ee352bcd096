// CPU-bound tasks in a worker thread (src/platform/task-thread.ts): answers in order, a task past its budget
// ends its thread and the next task gets a fresh one, a bounded queue, cancellation, a thread that never starts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TaskThread, TaskThreadError } from '../../src/platform/task-thread';

const ROOT = path.join(__dirname, '..', '..');
let dir: string;
let boot: string;
let silentBoot: string;
const threads: TaskThread[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-thread-'));
  boot = path.join(dir, 'boot.cjs');
  fs.writeFileSync(
    boot,
    `require(${JSON.stringify(path.join(ROOT, 'src', 'register.cjs'))});
const { threadId } = require('node:worker_threads');
const { serveTasks } = require(${JSON.stringify(path.join(ROOT, 'src', 'platform', 'task-thread.ts'))});
serveTasks({
  echo: (p) => p,
  thread: () => threadId,
  spin: ({ ms }) => { const end = Date.now() + ms; while (Date.now() < end); return 'spun'; },
  fail: () => { throw new Error('the input was odd'); },
});
`,
  );
  silentBoot = path.join(dir, 'silent.cjs');
  fs.writeFileSync(silentBoot, 'setInterval(() => {}, 1000);\n');
});
afterAll(async () => {
  await Promise.all(threads.map((t) => t.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function thread(opts: Partial<ConstructorParameters<typeof TaskThread>[0]> = {}) {
  const t = new TaskThread({ bootPath: boot, name: 'test', maxWaiting: 4, idleMs: 60_000, startBudgetMs: 30_000, ...opts });
  threads.push(t);
  return t;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as TaskThreadError,
  );

it('answers each task with its handler’s value, in order, on one thread', async () => {
  const t = thread();
  const answers = await Promise.all([
    t.run('echo', { a: 1 }, { budgetMs: 5_000 }),
    t.run('echo', [2], { budgetMs: 5_000 }),
    t.run('thread', null, { budgetMs: 5_000 }),
    t.run('thread', null, { budgetMs: 5_000 }),
  ]);
  expect(answers.slice(0, 2)).toEqual([{ a: 1 }, [2]]);
  expect(answers[2]).toBe(answers[3]);
});

it('fails a task past its budget, ends its thread, and runs the next task on a fresh one', async () => {
  const t = thread();
  const before = await t.run<number>('thread', null, { budgetMs: 5_000 });
  const started = Date.now();
  const err = await failure(t.run('spin', { ms: 10_000 }, { budgetMs: 200 }));
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(err).toBeInstanceOf(TaskThreadError);
  expect(err).toMatchObject({ reason: 'timeout', message: 'the test task took longer than 200 ms' });
  const after = await t.run<number>('thread', null, { budgetMs: 5_000 });
  expect(after).not.toBe(before);
});

it('passes a handler’s error back and keeps the thread', async () => {
  const t = thread();
  const before = await t.run('thread', null, { budgetMs: 5_000 });
  expect(await failure(t.run('fail', null, { budgetMs: 5_000 }))).toMatchObject({ reason: 'failed', message: 'the test task failed: the input was odd' });
  expect(await failure(t.run('nothing', null, { budgetMs: 5_000 }))).toMatchObject({ reason: 'failed', message: 'the test task failed: no task nothing' });
  expect(await t.run('thread', null, { budgetMs: 5_000 })).toBe(before);
});

it('refuses a task at once when too many are waiting', async () => {
  const t = thread({ maxWaiting: 1 });
  await t.run('echo', 0, { budgetMs: 5_000 });
  const running = t.run('spin', { ms: 300 }, { budgetMs: 5_000 });
  const waiting = t.run('echo', 'queued', { budgetMs: 5_000 });
  expect(await failure(t.run('echo', 'refused', { budgetMs: 5_000 }))).toMatchObject({ reason: 'busy' });
  expect(await running).toBe('spun');
  expect(await waiting).toBe('queued');
});

it('drops a waiting task whose caller gave up, and ends the thread of a running one', async () => {
  const t = thread();
  const before = await t.run<number>('thread', null, { budgetMs: 5_000 });
  const running = new AbortController();
  const waiting = new AbortController();
  const spin = failure(t.run('spin', { ms: 10_000 }, { budgetMs: 20_000, signal: running.signal }));
  const queued = failure(t.run('echo', 'never', { budgetMs: 5_000, signal: waiting.signal }));
  waiting.abort();
  expect(await queued).toMatchObject({ reason: 'aborted' });
  running.abort();
  expect(await spin).toMatchObject({ reason: 'aborted' });
  expect(await t.run('thread', null, { budgetMs: 5_000 })).not.toBe(before);
  expect(await failure(t.run('echo', 1, { budgetMs: 5_000, signal: AbortSignal.abort() }))).toMatchObject({ reason: 'aborted' });
});

it('fails the tasks of a thread that never starts serving', async () => {
  const t = thread({ bootPath: silentBoot, startBudgetMs: 300 });
  const [a, b] = await Promise.all([failure(t.run('echo', 1, { budgetMs: 5_000 })), failure(t.run('echo', 2, { budgetMs: 5_000 }))]);
  expect(a).toMatchObject({ reason: 'failed', message: 'the test thread did not start within 300 ms' });
  expect(b).toMatchObject({ reason: 'failed' });
});
