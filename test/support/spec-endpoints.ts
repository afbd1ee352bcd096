// The endpoint tables of the spec (§4.1-§4.15), as data: method, path, Auth column (B, -, Admin) and Rate
// column (requests a minute, or null for `-`). Spec-sentence tests of §5 and §8 walk them. Alias paths are
// rows of their own (`/my/usage` for `/agents/me/usage`).
import { randomUUID } from 'node:crypto';

export type SpecAuth = 'B' | '-' | 'Admin';

export interface SpecEndpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  auth: SpecAuth;
  rate: number | null;
}

const rows: [SpecEndpoint['method'], string, SpecAuth, number | null][] = [
  // §4.1 Agents and keys
  ['POST', '/agents/register', '-', 30],
  ['GET', '/agents/me', 'B', 60],
  ['PATCH', '/agents/me', 'B', 60],
  ['GET', '/agents/me/usage', 'B', 60],
  ['GET', '/my/usage', 'B', 60],
  ['GET', '/agents/me/keys', 'B', 60],
  ['GET', '/my/keys', 'B', 60],
  ['GET', '/agents/me/transactions', 'B', 60],
  ['GET', '/my/transactions', 'B', 60],
  ['GET', '/agents/me/analytics', 'B', 60],
  ['GET', '/my/analytics', 'B', 60],
  ['GET', '/agents/me/disputes', 'B', 60],
  ['GET', '/my/disputes', 'B', 60],
  ['GET', '/agents/me/executions', 'B', 60],
  ['GET', '/my/executions', 'B', 60],
  ['GET', '/my/reputation', 'B', 60],
  ['GET', '/my/audit-log', 'B', 60],
  ['GET', '/my/sparks', 'B', 60],
  ['POST', '/agents/:id/sub-agents', 'B', 30],
  ['POST', '/agents/:agentId/wallet', 'B', 60],
  ['GET', '/agents/:agentId/wallet', 'B', 60],
  ['POST', '/keys/provision/:serviceKey', 'B', 60],
  ['POST', '/keys/verify', '-', 60],
  ['POST', '/keys/:keyId/rotate', 'B', 60],
  // §4.2 Discovery and registry
  ['POST', '/resolve', 'B', 30],
  ['GET', '/resolve/quick', 'B', 30],
  ['POST', '/services/register', 'B', 30],
  ['GET', '/services', '-', 60],
  ['GET', '/capabilities', '-', 60],
  ['GET', '/stats', '-', 60],
  ['GET', '/showcase', '-', null],
  ['GET', '/tiers', '-', null],
  ['GET', '/capabilities/pricing', '-', 60],
  ['POST', '/capabilities/:capabilityId/pricing', 'B', 60],
  // §4.3 Execution
  ['POST', '/execute', 'B', 100],
  // §4.4 Disputes
  ['POST', '/disputes', 'B', 30],
  // §4.5 Support tickets
  ['GET', '/tickets/:ticketKey', 'B', 60],
  ['PATCH', '/tickets/:ticketKey/status', 'B', 60],
  ['POST', '/tickets/:ticketKey/comments', 'B', 60],
  ['GET', '/tickets/endpoints', 'B', 60],
  ['POST', '/tickets/register-endpoint', 'B', 60],
  // §4.6 Webhooks and subscriptions
  ['POST', '/webhooks', 'B', 60],
  ['POST', '/subscriptions', 'B', 60],
  ['GET', '/subscriptions', 'B', 60],
  ['GET', '/subscriptions/:id', 'B', 60],
  ['PATCH', '/subscriptions/:id', 'B', 60],
  ['POST', '/subscriptions/:id/pause', 'B', 60],
  ['POST', '/subscriptions/:id/resume', 'B', 60],
  ['POST', '/subscriptions/:id/cancel', 'B', 60],
  // §4.7 Memory stores
  ['POST', '/memory/stores', 'B', 60],
  ['GET', '/memory/stores', 'B', 60],
  ['GET', '/memory/stores/public', '-', 60],
  ['PUT', '/memory/stores/:id/entries', 'B', 60],
  ['GET', '/memory/stores/:id/entries', 'B', 60],
  ['POST', '/memory/stores/:id/search', 'B', 60],
  // §4.8 Streaming
  ['POST', '/streaming/sessions', 'B', 30],
  ['GET', '/streaming/sessions/:id/events', 'B', 60],
  ['POST', '/streaming/sessions/:id/push', 'B', 60],
  ['POST', '/streaming/sessions/:id/end', 'B', 60],
  // §4.9 Skills, sparks, tasks
  ['GET', '/agent-skills/marketplace', '-', 60],
  ['POST', '/agent-skills', 'B', 60],
  ['POST', '/agent-skills/:id/publish', 'B', 60],
  ['POST', '/agent-skills/:id/fork', 'B', 60],
  ['POST', '/agent-skills/:id/install', 'B', 60],
  ['GET', '/sparks', '-', 60],
  ['POST', '/tasks', 'B', 60],
  ['POST', '/tasks/:id/delegate', 'B', 60],
  ['POST', '/tasks/:id/execute', 'B', 60],
  ['POST', '/tasks/:id/publish-spark', 'B', 60],
  // §4.10 Swarm
  ['POST', '/swarm/sessions', 'B', 60],
  ['GET', '/swarm/sessions/:id', 'B', 60],
  ['GET', '/swarm/sessions', 'B', 60],
  // §4.11 UTO and AMMC
  ['POST', '/uto/tickets', 'B', 60],
  ['GET', '/uto/tickets', 'B', 60],
  ['GET', '/uto/tickets/:id', 'B', 60],
  ['POST', '/uto/tickets/:id/advance', 'B', 60],
  ['GET', '/uto/events', 'B', 60],
  ['POST', '/uto/notifications/subscribe', 'B', 60],
  ['POST', '/uto/agents/register-specialist', 'B', 60],
  ['GET', '/uto/agents/specialists', 'B', 60],
  ['GET', '/ammc/agents', '-', 60],
  ['POST', '/ammc/conglomerates', 'B', 60],
  ['POST', '/ammc/conglomerates/:id/advance', 'B', 60],
  ['GET', '/ammc/stats', 'B', 60],
  // §4.12 Payments and on-chain commerce
  ['GET', '/x402/sandbox/status', '-', 60],
  ['POST', '/x402/sandbox/test-payment', 'B', 60],
  ['GET', '/acp/status', '-', 60],
  ['GET', '/acp/offerings', '-', 60],
  ['GET', '/acp/offerings/usdc', '-', 60],
  ['GET', '/acp/offerings/:id/payment-terms', '-', 60],
  // §4.13 Third-party agent gateway
  ['POST', '/ext/agents/register', 'B', 30],
  ['POST', '/ext/capabilities/register', 'B', 60],
  ['GET', '/ext/capabilities/search', 'B', 60],
  ['POST', '/ext/gateway/connect', 'B', 60],
  ['GET', '/ext/gateway/events', 'B', 60],
  ['POST', '/ext/vault/token', 'B', 60],
  ['POST', '/ext/vault/verify', 'B', 60],
  ['POST', '/ext/swarm/delegate', 'B', 60],
  ['POST', '/ext/hub/convert', 'B', 60],
  ['POST', '/ext/hub/import', 'B', 60],
  ['GET', '/ext/reputation/passport/:agentId', 'B', 60],
  ['POST', '/ext/reputation/verify', '-', 60],
  ['POST', '/ext/payments/offer', 'B', 60],
  ['POST', '/ext/payments/checkout', 'B', 60],
  ['POST', '/ext/radio/subscribe', 'B', 60],
  ['GET', '/ext/radio/stream', 'B', 60],
  // §4.14 Tool index
  ['GET', '/webmcp/tools', '-', 60],
  ['POST', '/webmcp/submit', '-', 30],
  ['GET', '/webmcp/stats', '-', 60],
  ['GET', '/webmcp/manifest', '-', 60],
  // §4.15 Health and administration
  ['GET', '/health', '-', 60],
  ['GET', '/ping', '-', 60],
  ['GET', '/version', '-', 60],
  ['GET', '/uptime', '-', 60],
  ['PATCH', '/admin/agents/:agentId/status', 'Admin', 60],
  ['GET', '/admin/disputes', 'Admin', 60],
  ['PATCH', '/admin/disputes/:disputeId/resolve', 'Admin', 60],
  ['GET', '/admin/stats', 'Admin', 60],
  ['GET', '/admin/revenue', 'Admin', 60],
];

export const SPEC_ENDPOINTS: SpecEndpoint[] = rows.map(([method, path, auth, rate]) => ({ method, path, auth, rate }));

/** The path with each parameter filled with a well-formed value that names nothing. */
export function concretePath(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => {
    if (name === 'serviceKey') return `svc_${'0'.repeat(24)}`;
    if (name === 'ticketKey') return 'ST-1';
    if (name === 'capabilityId') return 'summarize';
    return randomUUID();
  });
}

/** What a request to the endpoint sends: a query the quick resolve requires, an empty JSON body where one is taken. */
export function requestOf(e: SpecEndpoint): { path: string; body?: unknown } {
  const path = concretePath(e.path) + (e.path === '/resolve/quick' ? '?capability=summarize' : '');
  return e.method === 'GET' ? { path } : { path, body: {} };
}
