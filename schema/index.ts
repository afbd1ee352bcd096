// Builds the schema from every area's type file. Import order does not matter; each file registers itself.
import { builder } from './builder';
import './agents';
import './health';
import './keys';
import './services';
import './service-owner';
import './showcase';
import './discovery';
import './admin';
import './account';
import './wallets';
import './webhooks';
import './execution';
import './tickets';
import './disputes';
import './memory';
import './streaming';
import './subscriptions';
import './skills';
import './tasks';
import './swarms';
import './uto';
import './ammc';
import './onboarding';
import './webmcp';
import './ext/agents';
import './ext/capabilities';
import './ext/gateway-events';
import './ext/credentials';
import './ext/delegations';
import './ext/hub';
import './ext/offers';
import './ext/radio';
import './payments';
import './mandates';
import './acp';

import { defaultFieldResolver } from 'graphql';
import type { Ctx } from '../src/domain/context';

export const schema = builder.toSchema({ sortSchema: true });

/**
 * The mutations of the data plane, which change nothing a cache holds (a caller, a ranking, a page): a call
 * recorded, events pushed to a session. They run at the highest rates, and emptying the caches after each
 * would make every other request look its caller up again.
 */
const LEAVE_CACHES = new Set(['execute', 'pushStreamingEvents']);

/**
 * Every mutation but those empties this instance's read cache and principal cache once it has run, so the caller's own
 * change is seen by its next request before the database's change notification arrives. Wrapped here, on the built
 * schema, so every surface that runs it does it.
 */
for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
  if (LEAVE_CACHES.has(field.name)) continue;
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = async (source, args, ctx: Ctx, info) => {
    try {
      return await resolve(source, args, ctx, info);
    } finally {
      ctx.services.readCache.flush();
      ctx.services.principals.flush();
    }
  };
}
