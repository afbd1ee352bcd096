// Per-request loaders (src/platform/loaders.ts): the loads of one tick are one batch, each request has its
// own loader, and nothing is remembered past its batch.
import { allEach, oneEach, perRequest } from '../../src/platform/loaders';

function recording() {
  const batches: { ctx: object; keys: readonly number[] }[] = [];
  const loaderOf = perRequest(async (ctx: object, keys: readonly number[]) => {
    batches.push({ ctx, keys });
    return keys.map((k) => k * 10);
  });
  return { batches, loaderOf };
}

describe('perRequest', () => {
  it('answers the loads of one tick with one batch, in the order asked', async () => {
    const { batches, loaderOf } = recording();
    const ctx = {};
    expect(await Promise.all([3, 1, 2].map((k) => loaderOf(ctx).load(k)))).toEqual([30, 10, 20]);
    expect(batches).toEqual([{ ctx, keys: [3, 1, 2] }]);
  });

  it('gives each request its own loader, batching with its own context', async () => {
    const { batches, loaderOf } = recording();
    const a = {};
    const b = {};
    expect(loaderOf(a)).toBe(loaderOf(a));
    expect(loaderOf(a)).not.toBe(loaderOf(b));
    await Promise.all([loaderOf(a).load(1), loaderOf(b).load(2)]);
    expect(batches.map((x) => [x.ctx, x.keys])).toEqual([
      [a, [1]],
      [b, [2]],
    ]);
  });

  it('reads a key again in a later batch instead of remembering it', async () => {
    const { batches, loaderOf } = recording();
    const ctx = {};
    await loaderOf(ctx).load(1);
    await loaderOf(ctx).load(1);
    expect(batches).toHaveLength(2);
  });
});

describe('oneEach and allEach', () => {
  const rows = [
    { key: 'b', n: 1 },
    { key: 'a', n: 2 },
    { key: 'b', n: 3 },
  ];

  it('oneEach gives each key its row, undefined for a key without one', () => {
    expect(oneEach(['a', 'c'], rows, (r) => r.key)).toEqual([{ key: 'a', n: 2 }, undefined]);
  });

  it('allEach gives each key its rows in their order, none for a key without any', () => {
    expect(allEach(['b', 'c', 'b'], rows, (r) => r.key).map((list) => list.map((r) => r.n))).toEqual([[1, 3], [], [1, 3]]);
  });
});
