// Collecting what a start left behind. V8 collects when allocation asks it to, and an idle process
// allocates next to nothing: what a start made and dropped (the schema's construction, the routes'
// compiles, the first queries' plans, the embedded database's file bundle) stays on the heap, resident,
// until the first load or until V8's memory reducer gets to it a minute or more later. Each thread calls
// `collectAfterStart` once its start is done (docs/operations.md, Footprint).
import v8 from 'node:v8';
import vm from 'node:vm';

/** How long after its start a thread collects: past the start's first statements and timers. */
export const SETTLE_MS = 1_000;

/** One full collection of this thread's heap, SETTLE_MS from now (a timer that holds no process open). */
export function collectAfterStart(): void {
  setTimeout(collectGarbage, SETTLE_MS).unref();
}

function collectGarbage(): void {
  // `--expose-gc` set now applies to contexts made from now on: a new context's `gc` is V8's collector,
  // which collects the whole isolate's heap, not the context's alone.
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}
