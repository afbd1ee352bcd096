// Waiting for work that another request claimed first (an idempotent request, a payment being settled):
// on this instance the waiter is woken when the claimant's promise settles; across instances it reads the
// database again every few milliseconds, until the claim is finished or its lease has passed.

export class InFlight {
  private readonly running = new Map<string, Promise<unknown>>();

  /** Runs `work` as the holder of `key`: waiters on this instance are woken when it settles. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const promise = work();
    this.running.set(key, promise);
    const done = () => {
      if (this.running.get(key) === promise) this.running.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  /** Waits for the holder of `key` on this instance, or at most `ms` when it runs elsewhere. */
  async settled(key: string, ms: number): Promise<void> {
    const mine = this.running.get(key);
    if (mine) {
      await mine.then(
        () => undefined,
        () => undefined,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * Reads `check` until it answers something, waiting between reads for the claimant of `key` (InFlight);
 * answers undefined once `deadline` (epoch ms) has passed.
 */
export async function waitForClaim<T>(
  inFlight: InFlight,
  key: string,
  check: () => Promise<T | undefined>,
  deadline: number,
  pollMs = 25,
): Promise<T | undefined> {
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() >= deadline) return undefined;
    await inFlight.settled(key, Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }
}
