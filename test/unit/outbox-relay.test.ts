import type { SqlRunner } from '../../src/db/database';
import { systemClock } from '../../src/platform/clock';
import { createLogger } from '../../src/platform/logger';
import { OutboxRelay, type OutboxRecord } from '../../src/platform/outbox';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const record = (id: string): OutboxRecord => ({ id, type: 'execution.succeeded', created_at: new Date().toISOString(), data: {}, agentId: 'a' });

/** The relay's order of work: each event routed, and each statement it sent (the marks). */
function relayWithLog() {
  const log: string[] = [];
  const sql: SqlRunner = {
    query: async <T>(text: string, params: unknown[]) => {
      log.push(`sql ${text.includes('published_at') ? 'mark' : text} ${(params[0] as string[]).join(',')}`);
      return [] as T[];
    },
  };
  const relay = new OutboxRelay(sql, systemClock, createLogger('silent'), (event) => log.push(`route ${event.id}`));
  return { relay, log };
}

describe('OutboxRelay', () => {
  it('relays committed events on the next turn of the event loop, a turn’s events together and in order', async () => {
    const { relay, log } = relayWithLog();
    relay.committed([record('e1'), record('e2')], 0);
    relay.committed([record('e3')], 0);
    // The request that committed them is answered first, in this turn.
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['route e1', 'route e2', 'route e3']);
    relay.committed([record('e4')], 0);
    await nextTurn();
    expect(log).toEqual(['route e1', 'route e2', 'route e3', 'route e4']);
    await relay.flushMarks();
  });

  it('never marks an event published before it was relayed', async () => {
    const { relay, log } = relayWithLog();
    relay.committed([record('e1')], 0);
    relay.committed([record('e2')], 0);
    await relay.flushMarks();
    expect(log).toEqual(['route e1', 'route e2', 'sql mark e1,e2']);
    // Nothing is relayed twice on the turn that had been scheduled.
    await nextTurn();
    expect(log).toEqual(['route e1', 'route e2', 'sql mark e1,e2']);
  });
});
