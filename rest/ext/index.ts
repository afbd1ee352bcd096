// REST routes of the third-party agent gateway (spec §4.13), a file per part, in the order the OpenAPI document lists them.
// Bodies the spec leaves out are designed in docs/gateway.md and described with each route for the OpenAPI document.
import type { Route } from '../route';
import { gatewayRoutes } from './gateway';
import { vaultRoutes } from './vault';
import { delegationRoutes } from './delegations';
import { hubRoutes } from './hub';
import { reputationRoutes } from './reputation';
import { paymentRoutes } from './payments';
import { radioRoutes } from './radio';

export const extRoutes: Route[] = [...gatewayRoutes, ...vaultRoutes, ...delegationRoutes, ...hubRoutes, ...reputationRoutes, ...paymentRoutes, ...radioRoutes];
