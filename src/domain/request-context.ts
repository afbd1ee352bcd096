// Builds the per-request Ctx for every surface from the caller's bearer credential and address.
import { parseBearer } from '../platform/auth';
import { lookupPrincipal } from './agents/principal';
import type { Ctx, Principal, Services } from './context';

export interface RequestFacts {
  authorization: unknown;
  requestId: string;
  clientAddress: string;
}

export function createContext(services: Services, facts: RequestFacts): Ctx {
  const bearer = parseBearer(facts.authorization);
  let principal: Promise<Principal> | undefined;
  const ctx: Ctx = {
    services,
    db: services.db,
    requestId: facts.requestId,
    clientAddress: facts.clientAddress,
    bearer,
    principal: () =>
      (principal ??= lookupPrincipal(services, bearer).then((p) => {
        ctx.resolvedPrincipal = p;
        return p;
      })),
    seedPrincipal: (p) => {
      if (principal) return;
      principal = Promise.resolve(p);
      ctx.resolvedPrincipal = p;
    },
  };
  return ctx;
}

/** Rate limits count per credential, or per address without one (CONTRACT §5). */
export function rateSubject(ctx: Pick<Ctx, 'bearer' | 'clientAddress'>): string {
  return ctx.bearer.kind === 'key' ? `key:${ctx.bearer.hash}` : `ip:${ctx.clientAddress}`;
}
