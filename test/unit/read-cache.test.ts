import { READ_CACHE_BYTES, ReadCache } from '../../src/platform/read-cache';
import { handMovedPerformanceNow } from '../support/clock';

/** A load that counts its calls and answers `value` after `ms` (readers asking meanwhile share it). */
function counted<T>(value: T, ms = 5) {
  const load = Object.assign(
    async () => {
      load.calls += 1;
      await new Promise((r) => setTimeout(r, ms));
      return value;
    },
    { calls: 0 },
  );
  return load;
}

describe('ReadCache', () => {
  // The cache reads the time from performance.now() alone: a test that lets a TTL pass moves it by hand.
  afterEach(() => jest.restoreAllMocks());

  it('holds at most its byte budget, however many distinct large answers are kept', () => {
    const cache = new ReadCache(60_000);
    cache.setListening(true);
    const answer = { matches: Array.from({ length: 100 }, (_, i) => ({ id: i, name: 'x'.repeat(100) })) };
    for (let i = 0; i < 2_000; i++) cache.keep(`query ${i}`, i % 2 ? answer : JSON.stringify(answer), performance.now());
    expect(cache.kept.bytes).toBeLessThanOrEqual(READ_CACHE_BYTES);
    expect(cache.kept.entries).toBeLessThan(2_000);
    // The most recent are the ones kept.
    expect(cache.peek('query 1999')).toBe(answer);
    expect(cache.peek('query 0')).toBeUndefined();
  });

  it('keeps nothing until its change feed is listening, nor with a TTL of 0', async () => {
    const cache = new ReadCache(1000);
    const load = counted('a');
    await cache.read('k', load);
    await cache.read('k', load);
    expect(load.calls).toBe(2);
    cache.setListening(true);
    await cache.read('k', load);
    expect(await cache.read('k', load)).toBe('a');
    expect(load.calls).toBe(3);
    const off = new ReadCache(0);
    off.setListening(true);
    await off.read('k', load);
    await off.read('k', load);
    expect(load.calls).toBe(5);
  });

  it('keeps an answer per key, looked up once for readers asking at the same time', async () => {
    const cache = new ReadCache(60_000);
    cache.setListening(true);
    const a = counted('a');
    const b = counted('b');
    expect(await Promise.all(Array.from({ length: 5 }, () => cache.read('x', a)))).toEqual(['a', 'a', 'a', 'a', 'a']);
    expect(await cache.read('y', b)).toBe('b');
    expect(await cache.read('x', a)).toBe('a');
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });

  it('forgets an answer after its TTL, everything on a flush or when the feed drops', async () => {
    const clock = handMovedPerformanceNow();
    const cache = new ReadCache(50);
    cache.setListening(true);
    const load = counted('a', 0);
    await cache.read('k', load);
    clock.advance(70);
    await cache.read('k', load);
    expect(load.calls).toBe(2);
    cache.flush();
    await cache.read('k', load);
    expect(load.calls).toBe(3);
    cache.setListening(false);
    await cache.read('k', load);
    cache.setListening(true);
    await cache.read('k', load);
    expect(load.calls).toBe(5);
  });

  it('neither keeps nor shares a lookup that began before a flush: it may have read what the flush was for', async () => {
    const cache = new ReadCache(60_000);
    cache.setListening(true);
    const stale = counted('stale', 20);
    const pending = cache.read('k', stale);
    cache.flush();
    // A reader arriving after the flush starts its own lookup rather than waiting for the stale one.
    const fresh = counted('fresh', 5);
    expect(await cache.read('k', fresh)).toBe('fresh');
    expect(await pending).toBe('stale');
    expect(await cache.read('k', counted('other'))).toBe('fresh');
    expect([stale.calls, fresh.calls]).toEqual([1, 1]);
  });

  it('does not keep a failed lookup', async () => {
    const cache = new ReadCache(60_000);
    cache.setListening(true);
    await expect(cache.read('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.read('k', counted('up'))).toBe('up');
  });

  it('keeps what a caller made itself by the same rules: not while the feed is down, nor work begun before a flush', async () => {
    const clock = handMovedPerformanceNow();
    const cache = new ReadCache(60_000);
    cache.keep('k', 'early', performance.now());
    expect(cache.peek('k')).toBeUndefined();
    cache.setListening(true);
    const before = performance.now();
    clock.advance(2);
    cache.flush();
    cache.keep('k', 'stale', before);
    expect(cache.peek('k')).toBeUndefined();
    cache.keep('k', 'fresh', performance.now());
    expect(cache.peek('k')).toBe('fresh');
    expect(await cache.read('k', counted('loaded'))).toBe('fresh');
    const short = new ReadCache(5);
    short.setListening(true);
    short.keep('k', 'brief', performance.now());
    clock.advance(10);
    expect(short.peek('k')).toBeUndefined();
  });

  it('answers an alias with what its original holds, until the original expires, and forgets both on a flush', async () => {
    const clock = handMovedPerformanceNow();
    const cache = new ReadCache(40);
    cache.setListening(true);
    cache.peek('k', 'request text');
    expect(cache.peek('request text')).toBeUndefined();
    cache.keep('k', 'answer', performance.now());
    clock.advance(20);
    cache.peek('k', 'request text');
    expect(cache.peek('request text')).toBe('answer');
    // Its life is the original's, not a TTL from when it was made.
    clock.advance(30);
    expect(cache.peek('request text')).toBeUndefined();
    cache.keep('k', 'again', performance.now());
    cache.peek('k', 'request text');
    cache.flush();
    expect(cache.peek('request text')).toBeUndefined();
    cache.setListening(false);
    cache.keep('k', 'down', performance.now());
    cache.peek('k', 'request text');
    expect(cache.peek('request text')).toBeUndefined();
  });

  it('weighs an alias as the value its original weighs, under its own key, and makes one in the lookup that finds it', () => {
    const cache = new ReadCache(1_000);
    cache.setListening(true);
    // A value its owner weighs (1,000 bytes), whatever its JSON would weigh.
    cache.keep('k', { big: 'x'.repeat(10) }, performance.now(), 1_000);
    expect(cache.kept.bytes).toBe(2 * 'k'.length + 1_000 + 64);
    cache.peek('k', 'request text');
    expect(cache.kept.bytes).toBe(2 * 'k'.length + 1_000 + 64 + 2 * 'request text'.length + 1_000 + 64);
    expect(cache.peek('k', 'other text')).toEqual({ big: 'x'.repeat(10) });
    expect(cache.peek('other text')).toBe(cache.peek('k'));
    expect(cache.kept).toEqual({ entries: 3, bytes: 3 * (1_000 + 64) + 2 * ('k'.length + 'request text'.length + 'other text'.length) });
    // Nothing kept under the other key when there is no answer.
    expect(cache.peek('missing', 'third text')).toBeUndefined();
    expect(cache.peek('third text')).toBeUndefined();
  });
});
