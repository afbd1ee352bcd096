// Builds the schema from every area's type file. Import order does not matter; each file registers itself.
import { builder } from './builder';
import './agents';
import './health';
import './keys';
import './services';
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
import './ext';
import './payments';
import './acp';

import { defaultFieldResolver } from 'graphql';
import type { Ctx } from '../src/domain/context';

export const schema = builder.toSchema({ sortSchema: true });

/**
 * Every mutation but `execute` empties this instance's read cache and principal cache once it has run, so
 * that the caller's own change (a key revoked, a service changed, an agent suspended, a skill published)
 * is seen by its next request even before the database's change notification arrives
 * (src/platform/read-cache.ts, src/domain/agents/principal-cache.ts). Wrapped here, on the built
 * schema, so that every surface that runs it (REST, GraphQL over HTTP, SSE and WebSocket) does it.
 */
for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
  if (field.name === 'execute') continue;
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
