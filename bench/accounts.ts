// What the run sets up through our server's API before the scenarios: its agents, the hot sub-key, the
// provider peer's services and the paying caller's funds.

export interface Agent {
  id: string;
  agentKey: string;
  name: string;
  description: string;
  ownerEmail: string;
  masterKey: string;
}

export async function register(url: string): Promise<Agent> {
  const input = {
    name: `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    description: 'Benchmark agent (npm run bench)',
    ownerEmail: 'bench@example.com',
  };
  const res = await fetch(`${url}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { agent_id?: string; agent_key?: string; master_key?: string };
  if (res.status !== 201 || !body.master_key || !body.agent_id || !body.agent_key) {
    throw new Error(`registration answered ${res.status}: ${JSON.stringify(body).replace(/key_master_\w+/g, 'key_master_[REDACTED]')}`);
  }
  return {
    id: body.agent_id,
    agentKey: body.agent_key,
    name: input.name,
    description: input.description,
    ownerEmail: input.ownerEmail,
    masterKey: body.master_key,
  };
}

/** Provisions the benchmark's hot sub-key on the seeded verify service. */
export async function provisionSubKey(url: string, me: Agent, serviceKey: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/keys/provision/${serviceKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { sub_key?: string };
  if (res.status !== 201 || !body.sub_key) throw new Error(`provisioning a sub-key answered ${res.status}`);
  return body.sub_key;
}

/** Registers a service for `capability` at `cents` a call, answered by the provider peer. */
export async function registerProviderService(url: string, me: Agent, endpoint: string, capability: string, cents = 0): Promise<string> {
  const res = await fetch(`${url}/api/v1/services/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: JSON.stringify({
      name: cents ? 'Bench paid provider' : 'Bench provider',
      description: 'The execute scenario’s provider: HTTPS on loopback, answering after 20 ms',
      endpoint,
      capabilities: [capability],
      pricing_model: cents ? 'per_call' : 'free',
      cost_per_call: cents,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { service_key?: string };
  if (res.status !== 201 || !body.service_key) throw new Error(`registering the provider's service answered ${res.status}: ${JSON.stringify(body)}`);
  return body.service_key;
}

/**
 * Credits the caller's wallet from the sandbox faucet (its cap is raised for the benchmark): the wallet
 * opens at this call with the starting balance (by default the cap), and the faucet tops up what is missing.
 */
export async function fundWallet(url: string, me: Agent, usdc: number): Promise<void> {
  const res = await fetch(`${url}/api/v1/x402/sandbox/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: JSON.stringify({ amount: String(usdc) }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { balance?: string };
  if (res.status !== 200 || !(Number(body.balance) >= usdc)) throw new Error(`funding the caller's wallet answered ${res.status}: ${JSON.stringify(body)}`);
}
