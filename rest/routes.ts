// Every REST route table, in the order the OpenAPI document lists them.
import { agentRoutes } from './agents';
import { healthRoutes } from './health';
import type { Route } from './route';

export const routes: Route[] = [...agentRoutes, ...healthRoutes];

/** Operations reachable outside /api/v1 too (load balancers probe /health at the root). */
export const rootAliases = ['/health', '/ping', '/version', '/uptime'];
