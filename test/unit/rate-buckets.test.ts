// Rate buckets over the route tables (CONTRACT §5): every route of the spec is there with the spec's
// per-minute figure, every route has a bucket of its own, and a tool spends a route's bucket only when it
// runs that route's operation (MCP, REST and GraphQL of one operation share one budget, and nothing else).
import { parse, type OperationDefinitionNode } from 'graphql';
import type { Route } from '../../rest/route';
import { routes } from '../../rest/routes';
import { toolSpecs } from '../../protocols/mcp-tools';

/** The spec's endpoint tables (§4.1-§4.15): method and path, and the Rate column (null: none given). */
const SPEC_RATES: [string, number | null][] = [
  ['POST /agents/register', 30],
  ['GET /agents/me', 60],
  ['PATCH /agents/me', 60],
  ['GET /agents/me/usage', 60],
  ['GET /my/usage', 60],
  ['GET /agents/me/keys', 60],
  ['GET /my/keys', 60],
  ['GET /agents/me/transactions', 60],
  ['GET /my/transactions', 60],
  ['GET /agents/me/analytics', 60],
  ['GET /my/analytics', 60],
  ['GET /agents/me/disputes', 60],
  ['GET /my/disputes', 60],
  ['GET /agents/me/executions', 60],
  ['GET /my/executions', 60],
  ['GET /my/reputation', 60],
  ['GET /my/audit-log', 60],
  ['GET /my/sparks', 60],
  ['POST /agents/:id/sub-agents', 30],
  ['POST /agents/:agentId/wallet', 60],
  ['GET /agents/:agentId/wallet', 60],
  ['POST /keys/provision/:serviceKey', 60],
  ['POST /keys/verify', 60],
  ['POST /keys/:keyId/rotate', 60],
  ['POST /resolve', 30],
  ['GET /resolve/quick', 30],
  ['POST /services/register', 30],
  ['GET /services', 60],
  ['GET /capabilities', 60],
  ['GET /stats', 60],
  ['GET /showcase', null],
  ['GET /tiers', null],
  ['GET /capabilities/pricing', 60],
  ['POST /capabilities/:capabilityId/pricing', 60],
  ['POST /execute', 100],
  ['POST /disputes', 30],
  ['GET /tickets/:ticketKey', 60],
  ['PATCH /tickets/:ticketKey/status', 60],
  ['POST /tickets/:ticketKey/comments', 60],
  ['GET /tickets/endpoints', 60],
  ['POST /tickets/register-endpoint', 60],
  ['POST /webhooks', 60],
  ['POST /subscriptions', 60],
  ['GET /subscriptions', 60],
  ['GET /subscriptions/:id', 60],
  ['PATCH /subscriptions/:id', 60],
  ['POST /subscriptions/:id/pause', 60],
  ['POST /subscriptions/:id/resume', 60],
  ['POST /subscriptions/:id/cancel', 60],
  ['POST /memory/stores', 60],
  ['GET /memory/stores', 60],
  ['GET /memory/stores/public', 60],
  ['PUT /memory/stores/:id/entries', 60],
  ['GET /memory/stores/:id/entries', 60],
  ['POST /memory/stores/:id/search', 60],
  ['POST /streaming/sessions', 30],
  ['GET /streaming/sessions/:id/events', 60],
  ['POST /streaming/sessions/:id/push', 60],
  ['POST /streaming/sessions/:id/end', 60],
  ['GET /agent-skills/marketplace', 60],
  ['POST /agent-skills', 60],
  ['POST /agent-skills/:id/publish', 60],
  ['POST /agent-skills/:id/fork', 60],
  ['POST /agent-skills/:id/install', 60],
  ['GET /sparks', 60],
  ['POST /tasks', 60],
  ['POST /tasks/:id/delegate', 60],
  ['POST /tasks/:id/execute', 60],
  ['POST /tasks/:id/publish-spark', 60],
  ['POST /swarm/sessions', 60],
  ['GET /swarm/sessions/:id', 60],
  ['GET /swarm/sessions', 60],
  ['POST /uto/tickets', 60],
  ['GET /uto/tickets', 60],
  ['GET /uto/tickets/:id', 60],
  ['POST /uto/tickets/:id/advance', 60],
  ['GET /uto/events', 60],
  ['POST /uto/notifications/subscribe', 60],
  ['POST /uto/agents/register-specialist', 60],
  ['GET /uto/agents/specialists', 60],
  ['GET /ammc/agents', 60],
  ['POST /ammc/conglomerates', 60],
  ['POST /ammc/conglomerates/:id/advance', 60],
  ['GET /ammc/stats', 60],
  ['GET /x402/sandbox/status', 60],
  ['POST /x402/sandbox/test-payment', 60],
  ['GET /acp/status', 60],
  ['GET /acp/offerings', 60],
  ['GET /acp/offerings/usdc', 60],
  ['GET /acp/offerings/:id/payment-terms', 60],
  ['POST /ext/agents/register', 30],
  ['POST /ext/capabilities/register', 60],
  ['GET /ext/capabilities/search', 60],
  ['POST /ext/gateway/connect', 60],
  ['GET /ext/gateway/events', 60],
  ['POST /ext/vault/token', 60],
  ['POST /ext/vault/verify', 60],
  ['POST /ext/swarm/delegate', 60],
  ['POST /ext/hub/convert', 60],
  ['POST /ext/hub/import', 60],
  ['GET /ext/reputation/passport/:agentId', 60],
  ['POST /ext/reputation/verify', 60],
  ['POST /ext/payments/offer', 60],
  ['POST /ext/payments/checkout', 60],
  ['POST /ext/radio/subscribe', 60],
  ['GET /ext/radio/stream', 60],
  ['GET /webmcp/tools', 60],
  ['POST /webmcp/submit', 30],
  ['GET /webmcp/stats', 60],
  ['GET /webmcp/manifest', 60],
  ['GET /health', 60],
  ['GET /ping', 60],
  ['GET /version', 60],
  ['GET /uptime', 60],
  ['PATCH /admin/agents/:agentId/status', 60],
  ['GET /admin/disputes', 60],
  ['PATCH /admin/disputes/:disputeId/resolve', 60],
  ['GET /admin/stats', 60],
  ['GET /admin/revenue', 60],
];

/** Path parameters are matched by place, not by name (`:id` and `:agentId` are one parameter). */
const shape = (methodAndPath: string) => methodAndPath.replace(/:\w+/g, ':');
const pathsOf = (route: Route) => (Array.isArray(route.path) ? route.path : [route.path]);
const labelOf = (route: Route) => `${route.method} ${pathsOf(route)[0]}`;
const routeFor = (methodAndPath: string) => routes.find((r) => pathsOf(r).some((p) => shape(`${r.method} ${p}`) === shape(methodAndPath)));

/** The root field a document selects. */
function rootFieldOf(document: string): string {
  const op = parse(document).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  const field = op.selectionSet.selections[0];
  return field.kind === 'Field' ? field.name.value : '';
}

it.each(SPEC_RATES)('gives %s its own bucket at the spec’s %p a minute', (methodAndPath, perMinute) => {
  const route = routeFor(methodAndPath);
  expect(route).toBeDefined();
  expect(route!.bucket?.perMinute ?? null).toBe(perMinute);
  if (route!.bucket) {
    const sharing = routes.filter((r) => r !== route && r.bucket?.name === route!.bucket!.name).map(labelOf);
    expect(sharing).toEqual([]);
  }
});

it('gives every route a bucket of its own (an alias path is the same route)', () => {
  const byBucket = new Map<string, string[]>();
  for (const route of routes) {
    if (!route.bucket) continue;
    byBucket.set(route.bucket.name, [...(byBucket.get(route.bucket.name) ?? []), labelOf(route)]);
  }
  const shared = [...byBucket].filter(([, labels]) => labels.length > 1);
  expect(shared).toEqual([]);
  // Only the two the spec gives no limit have none.
  expect(
    routes
      .filter((r) => !r.bucket)
      .map(labelOf)
      .sort(),
  ).toEqual(['GET /showcase', 'GET /tiers']);
});

it('lets a tool spend a route’s bucket only when it runs that route’s operation, at the route’s figure', () => {
  const routeBuckets = new Map(routes.filter((r) => r.bucket).map((r) => [r.bucket!.name, r]));
  const wrong: string[] = [];
  for (const tool of toolSpecs) {
    if (!tool.bucket || !tool.document) continue;
    const route = routeBuckets.get(tool.bucket.name);
    if (!route) continue;
    if (rootFieldOf(tool.document) !== rootFieldOf(route.document) || tool.bucket.perMinute !== route.bucket!.perMinute) {
      wrong.push(`${tool.name} spends ${tool.bucket.name}, the bucket of ${labelOf(route)}`);
    }
  }
  expect(wrong).toEqual([]);
});
