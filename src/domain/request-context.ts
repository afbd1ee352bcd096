// Builds the per-request Ctx for every surface from the caller's bearer credential and address.
import { parseBearer } from '../platform/auth';
import type { ResponseFacts } from '../platform/http';
import { lookupPrincipal } from './agents/principal';
import type { Db } from '../db/database';
import type { Ctx, Principal, Services } from './context';

export interface RequestFacts {
  authorization: unknown;
  requestId: string;
  clientAddress: string;
  /** The facts of the HTTP answer, when the request has one of its own. */
  response?: ResponseFacts;
}

export function createContext(services: Services, facts: RequestFacts): Ctx {
  const bearer = parseBearer(facts.authorization);
  let principal: Promise<Principal> | undefined;
  let db: Db | undefined;
  const ctx: Ctx = {
    services,
    // With a credential to look up, the caller is resolved before any transaction of the request opens:
    // an audit record or a permission check inside the transaction then finds it remembered, instead of
    // querying beside the transaction (on PGlite's one connection, a wait on itself until it times out).
    // Made on first use: most requests answered from memory never touch it.
    get db() {
      return (db ??= bearer.kind === 'key' ? callerFirst(services.db, () => ctx.principal()) : services.db);
    },
    requestId: facts.requestId,
    clientAddress: facts.clientAddress,
    response: facts.response,
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

/** The database, with `$transaction` waiting for the caller's lookup before it opens. */
function callerFirst(db: Db, resolveCaller: () => Promise<unknown>): Db {
  const transaction = ((...args: unknown[]) =>
    resolveCaller().then(() => (db.$transaction as (...a: unknown[]) => Promise<unknown>)(...args))) as Db['$transaction'];
  return new Proxy(db, { get: (target, prop) => (prop === '$transaction' ? transaction : Reflect.get(target, prop, target)) });
}

/**
 * Rate limits count per credential, or per address without one (CONTRACT §5). A credential counts only
 * once it is known to be live: an unknown, malformed or revoked one counts against the address, or every
 * made-up key would open a fresh bucket.
 */
export function rateSubject(ctx: Pick<Ctx, 'bearer' | 'clientAddress' | 'principal' | 'resolvedPrincipal' | 'services'>): string | Promise<string> {
  const bearer = ctx.bearer;
  if (bearer.kind !== 'key') return `ip:${ctx.clientAddress}`;
  // Known at once for a caller already looked up or kept in the principal cache (only live ones are kept).
  const known = ctx.resolvedPrincipal ?? ctx.services.principals.get(bearer.hash);
  if (known) return known.kind === 'agent' || known.kind === 'admin' ? `key:${bearer.hash}` : `ip:${ctx.clientAddress}`;
  return ctx.principal().then((p) => (p.kind === 'agent' || p.kind === 'admin' ? `key:${bearer.hash}` : `ip:${ctx.clientAddress}`));
}
