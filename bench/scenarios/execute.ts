// Calls through the marketplace to a provider peer that answers after a fixed delay: against calling it
// directly, the least durable proxy's cost over the same call, and a paid call against a free one.
import type { Target } from '../lib/load';
import { json, type Scenario, type ScenarioContext } from './scenario';

/** The capability the execute scenario runs, offered only by the benchmark's HTTPS provider. */
export const EXECUTE_CAPABILITY = 'bench-execute';

/** The paid capability: the same provider peer, sold by another agent at one cent a call. */
export const PAID_CAPABILITY = 'bench-execute-paid';
export const PAID_CENTS = 1;
/** What the paid scenario's caller is funded with (USDC): far more than every call of a run costs. */
export const PAID_FUNDS_USDC = 1_000_000;

export function executeScenarios({ me, ours, peers, executeService }: ScenarioContext): Scenario[] {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  // The provider called directly with what our server sends it: the same shape and size.
  const directProvider: Target = {
    name: 'provider',
    url: `${peers.provider}/run`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ execution_id: '00000000-0000-4000-8000-000000000000', capability: EXECUTE_CAPABILITY, input: { text: 'hello' }, agent_id: me.id }),
    check: (status, body) => (status === 200 && json(body).echo?.text === 'hello' ? undefined : 'not the provider’s answer'),
  };
  /** Our POST /execute of `capability`, checked for a successful answer and by `also`. */
  const execute = (name: string, capability: string, also: (b: Record<string, any>) => string | undefined, extra: Record<string, unknown> = {}): Target => ({
    name,
    url: `${ours}/api/v1/execute`,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ capability, input: { text: 'hello' }, ...extra }),
    // Every answer carries its own execution id and latency.
    stableBody: false,
    check: (status, body) => {
      const b = json(body);
      return status === 200 && b.status === 'success' && b.result?.echo?.text === 'hello' ? also(b) : 'not a successful execution';
    },
  });
  return [
    {
      // The marketplace in front of a provider that answers in 20 ms, against calling the provider directly:
      // ours authenticates, ranks the capability's providers, signs and sends the call over its pooled
      // HTTPS client, and records the execution, attempt, transaction and event before answering.
      name: 'execute_20ms_provider',
      ours: execute('ours', EXECUTE_CAPABILITY, () => undefined),
      peer: directProvider,
      targets: { p50: 1.15 },
    },
    {
      // Reference for the line above: the floor (forward the call, commit one row, answer) against the
      // same direct call, in the same run. Ours' p50 ratio minus this one is the marketplace's own cost.
      name: 'execute_floor_reference',
      ours: { ...directProvider, name: 'proxy-floor', url: `${peers['proxy-floor']}/` },
      peer: directProvider,
      targets: {},
    },
    {
      // A call bounded by a full routing policy (a price bound, a deadline over the whole call, one named
      // provider) against the same call with none, in the same run: what reading and applying a policy costs.
      name: 'execute_routing_policy',
      ours: execute('ours with a policy', EXECUTE_CAPABILITY, (b) => (b.routing?.policy?.max_cost_cents === 5 ? undefined : 'no policy applied'), {
        routing: { max_cost_cents: 5, deadline_ms: 10_000, only: [executeService] },
      }),
      peer: execute('ours without', EXECUTE_CAPABILITY, (b) => (b.routing === null ? undefined : 'a policy applied')),
      targets: { p50: 1.05 },
    },
    {
      // A paid call settled from the caller's prepaid balance, against the same call of a free capability
      // of the same provider in the same run: the price held on the caller's wallet before the provider is
      // called, then charged, the provider paid its share and the marketplace its fee, with the record.
      name: 'execute_paid_prepaid',
      ours: execute('ours', PAID_CAPABILITY, (b) =>
        b.payment?.method === 'prepaid' && b.payment?.charged_cents === PAID_CENTS ? undefined : 'not paid from the balance',
      ),
      peer: execute('ours unpaid', EXECUTE_CAPABILITY, (b) => (b.payment === null ? undefined : 'not free')),
      targets: { p50: 1.2 },
    },
  ];
}
