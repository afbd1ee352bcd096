// Pure domain rules: tiers and field checks.
import { tierOf } from '../../src/domain/reputation/reputation';
import { ValidationFailed } from '../../src/platform/errors';
import { Checks } from '../../src/platform/validate';

describe('tierOf', () => {
  it.each([
    [0, 'newcomer'],
    [30, 'newcomer'],
    [31, 'contributor'],
    [60, 'contributor'],
    [61, 'trusted'],
    [85, 'trusted'],
    [86, 'star'],
    [100, 'star'],
  ])('puts a score of %i in %s', (score, tier) => {
    expect(tierOf(score)).toBe(tier);
  });
});

describe('Checks', () => {
  it('collects every failing field before throwing', () => {
    const c = new Checks();
    c.text('name', 'ab', { min: 3, max: 50, required: true });
    c.email('ownerEmail', 'nope');
    c.slugs('capabilities', ['ok', 'NO'], 10);
    c.text('description', undefined, { max: 10, required: true });
    expect(() => c.done()).toThrow(ValidationFailed);
    expect(c.errors.map((e) => e.path)).toEqual(['name', 'ownerEmail', 'capabilities.1', 'description']);
  });

  it('trims, refuses control characters on one line, and de-duplicates slugs', () => {
    const c = new Checks();
    expect(c.text('a', '  hi  ', { max: 5 })).toBe('hi');
    c.text('b', 'x\u0007y', { max: 5 });
    expect(c.slugs('s', ['a', 'a', 'b'], 5)).toEqual(['a', 'b']);
    expect(c.errors).toEqual([{ path: 'b', message: 'must not contain control characters' }]);
  });
});
