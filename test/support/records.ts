// A call's record as execute's shared recording statements read it (BatchRecord), for tests that write
// records straight through recordTogether: a successful free call of the agent, changed by `fields`.
import { randomUUID } from 'node:crypto';
import type { BatchRecord } from '../../src/domain/execution/execute';

export function batchRecord(fields: Partial<BatchRecord> & { agent_id: string }): BatchRecord {
  return {
    id: randomUUID(),
    capability: 'batch-test',
    service_id: null,
    status: 'success',
    input: {},
    result: { ok: true },
    error: null,
    cost_cents: 0,
    latency_ms: 1,
    mode: 'auto',
    at: new Date().toISOString(),
    transaction_id: randomUUID(),
    event_id: `evt_${randomUUID().replace(/-/g, '')}`,
    event_type: 'execution.succeeded',
    event_data: {},
    attempts: [],
    ...fields,
  };
}
