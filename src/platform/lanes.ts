// Bounded concurrency: a list worked through by a fixed number of lanes, each taking the next item as soon
// as its last one is done, so one slow item holds up one lane rather than a whole wave of them.

/**
 * Runs `work` on every item, at most `lanes` at a time, in the items' order of starting. The first failure
 * stops the lanes from taking more items; it is thrown once the items already started have finished, so
 * nothing is left running behind the caller.
 */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        await work(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, lanes), items.length) }, lane));
  if (failure) throw failure.error;
}
