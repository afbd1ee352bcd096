// Every REST route table, in the order the OpenAPI document lists them.
import { adminRoutes } from './admin';
import { accountRoutes, agentRoutes } from './agents';
import { discoveryRoutes } from './discovery';
import { healthRoutes } from './health';
import { keyRoutes } from './keys';
import type { Route } from './route';
import { serviceRoutes } from './services';
import { serviceOwnerRoutes } from './service-owner';
import { showcaseRoutes } from './showcase';
import { walletRoutes } from './wallets';
import { webhookRoutes } from './webhooks';
import { mandateRoutes } from './mandates';
import { executionRoutes } from './execution';
import { ticketRoutes } from './tickets';
import { disputeRoutes } from './disputes';
import { memoryRoutes } from './memory';
import { streamingRoutes } from './streaming';
import { subscriptionRoutes } from './subscriptions';
import { skillRoutes } from './skills';
import { taskRoutes } from './tasks';
import { swarmRoutes } from './swarms';
import { utoRoutes } from './uto';
import { ammcRoutes } from './ammc';
import { webmcpRoutes } from './webmcp';
import { paymentRoutes } from './payments';
import { acpRoutes } from './acp';
import { extRoutes } from './ext';

export const routes: Route[] = [
  ...agentRoutes,
  ...accountRoutes,
  ...walletRoutes,
  ...keyRoutes,
  ...serviceRoutes,
  ...serviceOwnerRoutes,
  ...showcaseRoutes,
  ...discoveryRoutes,
  ...paymentRoutes,
  ...acpRoutes,
  ...executionRoutes,
  ...disputeRoutes,
  ...ticketRoutes,
  ...webhookRoutes,
  ...mandateRoutes,
  ...subscriptionRoutes,
  ...memoryRoutes,
  ...streamingRoutes,
  ...skillRoutes,
  ...taskRoutes,
  ...swarmRoutes,
  ...utoRoutes,
  ...ammcRoutes,
  ...webmcpRoutes,
  ...extRoutes,
  ...adminRoutes,
  ...healthRoutes,
];

/** Operations reachable outside /api/v1 too (load balancers probe /health at the root; manifests live at the root). */
export const rootAliases = ['/health', '/ping', '/version', '/uptime', '/.well-known/webmcp.json'];
