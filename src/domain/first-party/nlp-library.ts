// The nlp capabilities' library paths (nlp-text.ts, nlp-code.ts), run in a thread of their own: parsing,
// type-checking and scoring a 100 KB input takes a core for a while, which the event loop must not give,
// and synchronous work can only be bounded by ending its thread (task-thread.ts).
import path from 'node:path';
import { AppError } from '../../platform/errors';
import { TaskThread, TaskThreadError } from '../../platform/task-thread';
import type { Outline, ReviewResult } from './nlp-code';
import type { ClassifyResult, ExtractResult, SentimentResult } from './nlp-text';

/** The most of the thread's time one task may take. */
export const LIBRARY_BUDGET_MS = 5_000;

/** The library could not serve this input: its time ran out, or too many tasks were waiting. */
export class LibraryFailed extends AppError {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

interface Tasks {
  sentiment: [{ text: string }, SentimentResult];
  classify: [{ text: string; labels: { name: string; description?: string }[]; multiLabel: boolean }, ClassifyResult];
  summarize: [{ text: string; maxSentences: number }, ExtractResult];
  review: [{ source: string; language: string }, ReviewResult];
  outline: [{ source: string; language: string }, Outline];
}

// One thread per process, started on first use and ended after ten idle minutes, which gives back the memory its
// libraries hold (docs/capabilities/nlp.md, The library's thread).
let thread: TaskThread | undefined;

function libraryThread(): TaskThread {
  thread ??= new TaskThread({
    bootPath: path.join(__dirname, 'nlp-library-worker.boot.cjs'),
    name: 'nlp library',
    maxWaiting: 16,
    idleMs: 10 * 60_000,
    startBudgetMs: 60_000,
  });
  return thread;
}

export async function runLibrary<K extends keyof Tasks>(task: K, payload: Tasks[K][0], signal: AbortSignal): Promise<Tasks[K][1]> {
  try {
    return await libraryThread().run<Tasks[K][1]>(task, payload, { budgetMs: LIBRARY_BUDGET_MS, signal });
  } catch (err) {
    if (!(err instanceof TaskThreadError) || err.reason === 'aborted') throw err;
    if (err.reason === 'timeout') throw new LibraryFailed(`the library could not finish on this input within ${LIBRARY_BUDGET_MS} ms`);
    throw new LibraryFailed(err.reason === 'busy' ? 'the library has too many tasks waiting; retry shortly' : err.message);
  }
}
