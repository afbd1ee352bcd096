// The in-process group commit: items go at once while there is room, and together when there is not.
import { Batcher, type Settled } from '../../src/platform/batcher';

/** A run whose batches are recorded and finish only when the test says so. */
function harness(
  maxInFlight: number,
  maxBatch: number,
  settle: (items: number[]) => Settled<string>[] = (items) => items.map((i) => ({ ok: true, value: `done ${i}` })),
) {
  const batches: number[][] = [];
  const finishers: Array<() => void> = [];
  const batcher = new Batcher<number, string>(
    (items) => {
      batches.push(items);
      return new Promise((resolve, reject) => finishers.push(() => (items.includes(-1) ? reject(new Error('the statement failed')) : resolve(settle(items)))));
    },
    maxInFlight,
    maxBatch,
  );
  const finish = async (n: number) => {
    finishers[n]();
    await new Promise((r) => setImmediate(r));
  };
  return { batcher, batches, finish };
}

test('an item goes at once while fewer batches than the limit are running', async () => {
  const { batcher, batches, finish } = harness(2, 10);
  const a = batcher.submit(1);
  const b = batcher.submit(2);
  expect(batches).toEqual([[1], [2]]);
  await finish(0);
  await finish(1);
  await expect(a).resolves.toBe('done 1');
  await expect(b).resolves.toBe('done 2');
});

test('items that arrive while the limit is reached go together when a batch finishes, at most maxBatch at a time', async () => {
  const { batcher, batches, finish } = harness(1, 3);
  const results = [1, 2, 3, 4, 5, 6].map((i) => batcher.submit(i));
  expect(batches).toEqual([[1]]);
  await finish(0);
  expect(batches).toEqual([[1], [2, 3, 4]]);
  await finish(1);
  expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  await finish(2);
  await expect(Promise.all(results)).resolves.toEqual([1, 2, 3, 4, 5, 6].map((i) => `done ${i}`));
});

test('an item the run settles as failed fails alone; a run that throws fails its whole batch, and later items still go', async () => {
  const { batcher, batches, finish } = harness(1, 10, (items) =>
    items.map((i) => (i === 3 ? { ok: false, error: new Error('refused 3') } : { ok: true, value: `done ${i}` })),
  );
  const first = batcher.submit(1);
  const mixed = [2, 3, 4].map((i) => batcher.submit(i));
  await finish(0);
  await finish(1);
  await expect(first).resolves.toBe('done 1');
  await expect(mixed[0]).resolves.toBe('done 2');
  await expect(mixed[1]).rejects.toThrow('refused 3');
  await expect(mixed[2]).resolves.toBe('done 4');

  const thrown = batcher.submit(-1);
  await finish(2);
  await expect(thrown).rejects.toThrow('the statement failed');
  const after = batcher.submit(7);
  expect(batches[batches.length - 1]).toEqual([7]);
  await finish(3);
  await expect(after).resolves.toBe('done 7');
});
