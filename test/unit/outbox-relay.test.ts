import type { SqlRunner } from '../../src/db/database';
import { systemClock } from '../../src/platform/clock';
import { createLogger } from '../../src/platform/logger';
import { OutboxRelay, type OutboxRecord } from '../../src/platform/outbox';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const record = (id: string, at = '2026-11-26T06:00:00.000Z'): OutboxRecord => ({ id, type: 'execution.succeeded', created_at: at, data: {}, agentId: 'a' });

/** The relay's order of work: each event routed, and each statement it sent (the marks). */
function relayWithLog() {
  const log: string[] = [];
  const sql: SqlRunner = {
    query: async <T>(text: string, params: unknown[]) => {
      // A mark deletes the relayed events' queue rows: the range of their times, and their ids.
      const mark = text.includes('DELETE FROM outbox_unpublished');
      log.push(mark ? `sql mark ${params[0] === params[1] ? params[0] : `${params[0]}..${params[1]}`} ${(params[2] as string[]).join(',')}` : `sql ${text}`);
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
    relay.committed([record('e1', '2026-11-26T06:00:00.020Z')], 0);
    relay.committed([record('e2', '2026-11-26T06:00:00.007Z'), record('e3', '2026-11-26T06:00:00.051Z')], 0);
    await relay.flushMarks();
    const mark = 'sql mark 2026-11-26T06:00:00.007Z..2026-11-26T06:00:00.051Z e1,e2,e3';
    expect(log).toEqual(['route e1', 'route e2', 'route e3', mark]);
    // Nothing is relayed twice on the turn that had been scheduled.
    await nextTurn();
    expect(log).toEqual(['route e1', 'route e2', 'route e3', mark]);
  });
});
