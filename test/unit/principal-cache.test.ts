import { PrincipalCache } from '../../src/domain/agents/principal-cache';

const row = (name: string) => ({ name });

function listening(): PrincipalCache<{ name: string }> {
  const cache = new PrincipalCache<{ name: string }>();
  cache.setListening(true);
  return cache;
}

it('keeps nothing until its change feed is listening, and nothing once it stops', () => {
  const cache = new PrincipalCache<{ name: string }>();
  cache.set('h1', row('a'), 'agent-1', performance.now());
  expect(cache.get('h1')).toBeUndefined();
  cache.setListening(true);
  cache.set('h1', row('a'), 'agent-1', performance.now());
  expect(cache.get('h1')).toEqual({ name: 'a' });
  cache.setListening(false);
  expect(cache.get('h1')).toBeUndefined();
  cache.set('h1', row('a'), 'agent-1', performance.now());
  expect(cache.size).toBe(0);
});

it("forgets only the named agent's callers, and everything for '*'", () => {
  const cache = listening();
  const since = performance.now();
  cache.set('h1', row('a'), 'agent-1', since);
  cache.set('h2', row('a2'), 'agent-1', since);
  cache.set('h3', row('b'), 'agent-2', since);
  cache.set('admin', row('admin'), null, since);
  cache.changed('agent-1');
  expect([cache.get('h1'), cache.get('h2'), cache.get('h3')?.name, cache.get('admin')?.name]).toEqual([undefined, undefined, 'b', 'admin']);
  cache.changed('*');
  expect(cache.size).toBe(0);
});

it('does not keep a lookup that began before a change', () => {
  const cache = listening();
  const began = performance.now();
  cache.changed('agent-9');
  cache.set('h1', row('stale'), 'agent-1', began);
  expect(cache.get('h1')).toBeUndefined();
  cache.set('h1', row('fresh'), 'agent-1', performance.now() + 1);
  expect(cache.get('h1')).toEqual({ name: 'fresh' });
});

it('hands out frozen rows, and a hash moved to another agent is forgotten with its new agent', () => {
  const cache = listening();
  cache.set('h1', row('a'), 'agent-1', performance.now() + 1);
  expect(Object.isFrozen(cache.get('h1'))).toBe(true);
  cache.set('h1', row('b'), 'agent-2', performance.now() + 1);
  cache.changed('agent-1');
  expect(cache.get('h1')).toEqual({ name: 'b' });
  cache.changed('agent-2');
  expect(cache.get('h1')).toBeUndefined();
});
