// API usage per agent, endpoint and day: counted in memory on the request path and flushed in batches
// (every few seconds and at shutdown), so counting costs no database write per request. A crash loses at
// most one batch of counts, never an acknowledged write.
import type { Services } from '../context';

declare module '../context' {
  interface Services {
    /** Counts requests per agent, endpoint and day, written in batches. */
    usage: UsageRecorder;
  }
}

export class UsageRecorder {
  private pending = new Map<string, number>();
  /** The batch being written: still counted by pendingFor until its INSERT commits. */
  private writing = new Map<string, number>();

  record(agentId: string, endpoint: string, at: Date): void {
    const key = `${agentId}\u0000${endpoint}\u0000${at.toISOString().slice(0, 10)}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /** Counts not yet written, for one agent (so a read right after a call sees it). */
  pendingFor(agentId: string): { endpoint: string; day: string; count: number }[] {
    const out = [];
    for (const batch of [this.pending, this.writing]) {
      for (const [key, count] of batch) {
        const [id, endpoint, day] = key.split('\u0000');
        if (id === agentId) out.push({ endpoint, day, count });
      }
    }
    return out;
  }

  async flush(services: Pick<Services, 'sql'>): Promise<void> {
    if (this.pending.size === 0 || this.writing.size > 0) return;
    const batch = this.pending;
    this.writing = batch;
    this.pending = new Map();
    const agentIds: string[] = [];
    const endpoints: string[] = [];
    const days: string[] = [];
    const counts: number[] = [];
    for (const [key, count] of batch) {
      const [agentId, endpoint, day] = key.split('\u0000');
      agentIds.push(agentId);
      endpoints.push(endpoint);
      days.push(day);
      counts.push(count);
    }
    try {
      await services.sql.query(
        `INSERT INTO usage_counters (agent_id, endpoint, day, count)
         SELECT a::uuid, e, d::date, c FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS t(a, e, d, c)
         WHERE EXISTS (SELECT 1 FROM agents WHERE id = a::uuid)
         ON CONFLICT (agent_id, endpoint, day) DO UPDATE SET count = usage_counters.count + EXCLUDED.count`,
        [agentIds, endpoints, days, counts],
      );
    } catch (err) {
      // Put the batch back so the next flush retries it.
      for (const [key, count] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + count);
      throw err;
    } finally {
      this.writing = new Map();
    }
  }
}
