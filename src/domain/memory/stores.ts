// Memory stores (spec §2, §4.7): an agent's persistent key-value, vector or structured-document stores,
// private, shared with its sub-agents, or public, and who may reach each. Their entries are in entries.ts,
// the search over them in search.ts.
import type { Agent, MemoryStore } from '../../db/generated/prisma/client';
import { Conflict, Forbidden, NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import { tierDefinition } from '../reputation/reputation';
import { createStoreIndex, dropStoreIndex, MAX_DIMENSIONS } from './vectors';

export const STORE_TYPES = ['kv', 'vector', 'structured'] as const;
export const ACCESS_LEVELS = ['private', 'shared', 'public'] as const;
/** Ten years. */
export const TTL_MAX_SECONDS = 315_360_000;
export type StoreType = (typeof STORE_TYPES)[number];
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export interface CreateStoreInput {
  name?: unknown;
  storeType?: unknown;
  accessLevel?: unknown;
  description?: unknown;
  dimensions?: unknown;
  defaultTtlSeconds?: unknown;
}

export async function createStore(ctx: Ctx, input: CreateStoreInput): Promise<MemoryStore> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: 1, max: 100, required: true });
  const storeType = checks.oneOf('storeType', input.storeType, STORE_TYPES);
  const accessLevel = checks.oneOf('accessLevel', input.accessLevel, ACCESS_LEVELS, 'private');
  const description = checks.text('description', input.description, { max: 1000, multiline: true });
  const dimensions = checks.integer('dimensions', input.dimensions, 1, MAX_DIMENSIONS);
  const defaultTtlSeconds = checks.integer('defaultTtlSeconds', input.defaultTtlSeconds, 1, TTL_MAX_SECONDS);
  if (dimensions !== undefined && input.storeType !== 'vector') checks.fail('dimensions', 'is for vector stores only');
  checks.done();
  const limit = tierDefinition(me.reputation);
  const mode = ctx.services.vectorSearch;
  try {
    return await ctx.db.$transaction(async (tx) => {
      await assertAllowance(
        tx,
        me.id,
        limit.memory.stores,
        () => tx.memoryStore.count({ where: { agentId: me.id } }),
        () => new Forbidden(`A ${limit.name} agent may own at most ${limit.memory.stores} memory stores (see GET /tiers); delete one or earn a higher tier`),
      );
      const store = await tx.memoryStore.create({
        data: {
          agentId: me.id,
          name: name!,
          storeType: storeType!,
          accessLevel: accessLevel!,
          description: description || null,
          dimensions: dimensions ?? null,
          defaultTtlSeconds: defaultTtlSeconds ?? null,
        },
      });
      if (store.dimensions) await createStoreIndex(tx, mode, store.id, store.dimensions);
      await recordAudit(tx, ctx, {
        agentId: me.id,
        action: 'memory_store.created',
        targetType: 'memory_store',
        targetId: store.id,
        details: { name: store.name, storeType: store.storeType, accessLevel: store.accessLevel },
      });
      return store;
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new Conflict(`You already have a memory store named ${name}`);
    throw err;
  }
}

type Access = 'read' | 'write';

/** Whether `me` may read or write `store`: the owner always; its sub-agents when shared; anyone reads a public one. */
function mayAccess(me: Agent, store: MemoryStore, access: Access): boolean {
  if (store.agentId === me.id) return true;
  if (store.accessLevel === 'shared' && me.parentId === store.agentId) return true;
  return access === 'read' && store.accessLevel === 'public';
}

/**
 * The store, when the caller may reach it; another agent's private store is not found. A public store that
 * the caller may read but not write answers 403 to a write: its existence is public.
 */
export async function storeInReach(ctx: Ctx, id: string, access: Access): Promise<{ me: Agent; store: MemoryStore }> {
  const me = await requireAgent(ctx);
  const store = isUuid(id) ? await ctx.db.memoryStore.findUnique({ where: { id } }) : null;
  if (!store || !mayAccess(me, store, 'read')) throw new NotFound('memory store', id);
  if (access === 'write' && !mayAccess(me, store, 'write'))
    throw new Forbidden('Only the owner of this public store (and its sub-agents, were it shared) may write to it');
  return { me, store };
}

export async function getStore(ctx: Ctx, id: string): Promise<MemoryStore> {
  return (await storeInReach(ctx, id, 'read')).store;
}

/** The caller's own stores and the shared stores of its parent agent, newest first. */
export async function listStores(ctx: Ctx, page: Page, storeType?: string | null) {
  const me = await requireAgent(ctx);
  const reach = me.parentId ? [{ agentId: me.id }, { agentId: me.parentId, accessLevel: 'shared' }] : [{ agentId: me.id }];
  const where = { OR: reach, ...(storeType ? { storeType } : {}) };
  return pageOf(
    page,
    (q) => ctx.db.memoryStore.findMany({ where, ...q }),
    () => ctx.db.memoryStore.count({ where }),
  );
}

/** Every public store, newest first; no credential needed. */
export async function listPublicStores(ctx: Ctx, page: Page, storeType?: string | null) {
  const where = { accessLevel: 'public', ...(storeType ? { storeType } : {}) };
  return pageOf(
    page,
    (q) => ctx.db.memoryStore.findMany({ where, ...q }),
    () => ctx.db.memoryStore.count({ where }),
  );
}

export interface UpdateStoreInput {
  accessLevel?: unknown;
  description?: unknown;
  defaultTtlSeconds?: unknown;
}

/** The owner changes who may reach the store, its description, or the TTL of entries written from now on. */
export async function updateStore(ctx: Ctx, id: string, input: UpdateStoreInput): Promise<MemoryStore> {
  const { me, store } = await storeInReach(ctx, id, 'read');
  if (store.agentId !== me.id) throw new NotFound('memory store', id);
  const checks = new Checks();
  const accessLevel = input.accessLevel === undefined || input.accessLevel === null ? undefined : checks.oneOf('accessLevel', input.accessLevel, ACCESS_LEVELS);
  const description = checks.text('description', input.description, { max: 1000, multiline: true });
  const ttl = input.defaultTtlSeconds === null ? null : checks.integer('defaultTtlSeconds', input.defaultTtlSeconds, 1, TTL_MAX_SECONDS);
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    const updated = await tx.memoryStore.update({
      where: { id: store.id },
      data: { ...(accessLevel && { accessLevel }), ...(description !== undefined && { description }), ...(ttl !== undefined && { defaultTtlSeconds: ttl }) },
    });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'memory_store.updated',
      targetType: 'memory_store',
      targetId: store.id,
      details: { accessLevel: updated.accessLevel },
    });
    return updated;
  });
}

/** The owner deletes the store with every entry and version. */
export async function deleteStore(ctx: Ctx, id: string): Promise<MemoryStore> {
  const { me, store } = await storeInReach(ctx, id, 'read');
  if (store.agentId !== me.id) throw new NotFound('memory store', id);
  await ctx.db.$transaction(async (tx) => {
    await tx.memoryStore.delete({ where: { id: store.id } });
    await dropStoreIndex(tx, ctx.services.vectorSearch, store.id);
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'memory_store.deleted',
      targetType: 'memory_store',
      targetId: store.id,
      details: { name: store.name },
    });
  });
  return store;
}
