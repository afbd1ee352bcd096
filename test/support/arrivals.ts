// Waiting for a fixture's requests: the arrival that completes the count resolves the wait, with a deadline
// that fails the test when it never comes.
export interface Arrivals<T> {
  /** Tells the waiters that `list` grew. */
  arrived(): void;
  /** Resolves with the list once it holds `count` items (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
}

export function arrivals<T>(list: T[], what: string): Arrivals<T> {
  const waiters = new Set<{ count: number; resolve(): void }>();
  return {
    arrived() {
      for (const w of waiters) if (list.length >= w.count) w.resolve();
    },
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (list.length >= count) return resolve(list);
        const waiter = {
          count,
          resolve: () => {
            waiters.delete(waiter);
            clearTimeout(deadline);
            resolve(list);
          },
        };
        const deadline = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`expected ${count} ${what}, got ${list.length}`));
        }, timeoutMs);
        waiters.add(waiter);
      }),
  };
}
