// Time-ordered ids: the keys of the rows every call writes (executions, transactions, events).
import { isUuid, newEventId, newTimeOrderedUuid } from '../../src/platform/ids';

describe('time-ordered ids', () => {
  it('makes version 7 UUIDs whose first 48 bits are the time, in the order they were made', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2000 }, () => newTimeOrderedUuid());
    const after = Date.now();
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
      const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
    // Ordered by their time part (ids of one millisecond are in random order among themselves), and unique.
    const times = ids.map((id) => id.slice(0, 13));
    expect([...times].sort()).toEqual(times);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps 74 random bits in a version 7 UUID', () => {
    // Across ids of one millisecond every random hex digit takes many values.
    const ids = Array.from({ length: 500 }, () => newTimeOrderedUuid().replace(/-/g, '').slice(12));
    for (const position of [1, 2, 3, 5, 10, 19]) expect(new Set(ids.map((h) => h[position])).size).toBeGreaterThan(8);
  });

  it('makes event ids of evt_ and 24 base62, ordered by time whatever the collation, then random', () => {
    const ids = Array.from({ length: 2000 }, () => newEventId());
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-z]{9}[0-9A-Za-z]{15}$/);
    const prefixes = ids.map((id) => id.slice(4, 13));
    expect([...prefixes].sort()).toEqual(prefixes);
    expect(parseInt(prefixes[0], 36)).toBeLessThanOrEqual(Date.now());
    expect(parseInt(prefixes[0], 36)).toBeGreaterThan(Date.now() - 60_000);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
