import { ExecuteHotCache, type HotEntry } from '../../src/domain/execution/hot-cache';

const entry = (name: string): HotEntry => ({ principal: { credentialId: 'c', credentialKind: 'master', id: name } as never, candidates: [] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ExecuteHotCache', () => {
  it('keeps nothing until its change feed is listening, nor with a TTL of 0', () => {
    const cache = new ExecuteHotCache(1000);
    cache.set('h', 'cap', entry('a'), performance.now());
    expect(cache.get('h', 'cap')).toBeUndefined();
    cache.setListening(true);
    cache.set('h', 'cap', entry('a'), performance.now());
    expect(cache.get('h', 'cap')).toEqual(entry('a'));
    expect(cache.get('h', 'other')).toBeUndefined();
    expect(cache.get('other', 'cap')).toBeUndefined();
    const off = new ExecuteHotCache(0);
    off.setListening(true);
    off.set('h', 'cap', entry('a'), performance.now());
    expect(off.get('h', 'cap')).toBeUndefined();
  });

  it('forgets an entry after its TTL, everything on a flush or when the feed drops', async () => {
    const cache = new ExecuteHotCache(50);
    cache.setListening(true);
    cache.set('h', 'cap', entry('a'), performance.now());
    await sleep(70);
    expect(cache.get('h', 'cap')).toBeUndefined();
    cache.set('h', 'cap', entry('a'), performance.now());
    cache.flush();
    expect(cache.get('h', 'cap')).toBeUndefined();
    cache.set('h', 'cap', entry('a'), performance.now());
    cache.setListening(false);
    expect(cache.get('h', 'cap')).toBeUndefined();
    cache.setListening(true);
    expect(cache.get('h', 'cap')).toBeUndefined();
  });

  it('does not keep a lookup that began before a flush: it may have read what the flush was for', () => {
    const cache = new ExecuteHotCache(1000);
    cache.setListening(true);
    const began = performance.now();
    cache.flush();
    cache.set('h', 'cap', entry('stale'), began);
    expect(cache.get('h', 'cap')).toBeUndefined();
    cache.set('h', 'cap', entry('fresh'), performance.now());
    expect(cache.get('h', 'cap')).toEqual(entry('fresh'));
  });
});

describe("a capability's candidates", () => {
  it('are looked up once for calls asking at the same time, kept for the TTL, and forgotten on a flush', async () => {
    const cache = new ExecuteHotCache(60_000);
    cache.setListening(true);
    let loads = 0;
    const load = async () => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 5));
      return [] as never;
    };
    await Promise.all(Array.from({ length: 5 }, () => cache.capabilityCandidates('summarize', load)));
    expect(loads).toBe(1);
    await cache.capabilityCandidates('summarize', load);
    expect(loads).toBe(1);
    cache.flush();
    await cache.capabilityCandidates('summarize', load);
    expect(loads).toBe(2);
    // A lookup under way when the cache is emptied is not kept.
    const pending = cache.capabilityCandidates('translate', load);
    cache.flush();
    await pending;
    await cache.capabilityCandidates('translate', load);
    expect(loads).toBe(4);
    cache.setListening(false);
    await cache.capabilityCandidates('summarize', load);
    await cache.capabilityCandidates('summarize', load);
    expect(loads).toBe(6);
  });
});
