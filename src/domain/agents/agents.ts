// Agents: registration, the caller's own profile, and the events its changes produce.
import { isUniqueViolation, type DbTx } from '../../db/database';
import { Prisma, type Agent } from '../../db/generated/prisma/client';
import { Conflict, Forbidden, NotFound } from '../../platform/errors';
import { isUuid, newAgentKey, newMasterKey, secretHint, sha256Hex } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import type { Ctx } from '../context';
import { recordAudit } from '../audit/audit';
import { transact } from '../events';
import { requireAgent } from './principal';
import { statusForChildOf } from './status';

/**
 * Refuses with `refusal()` when the agent already holds `max` of something, counted by `count` inside `tx`
 * under the agent's row lock, so that concurrent creations cannot pass the limit together.
 */
export async function assertAllowance(tx: DbTx, agentId: string, max: number, count: () => Promise<number>, refusal: () => Error): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM agents WHERE id = ${agentId}::uuid FOR NO KEY UPDATE`;
  if ((await count()) >= max) throw refusal();
}

export type AgentQuery = { include?: Prisma.AgentInclude; select?: Prisma.AgentSelect };

export const NAME_MIN = 3;
export const NAME_MAX = 50;
export const DESCRIPTION_MAX = 2000;
export const CAPABILITIES_MAX = 100;
/** New agents start as newcomers with room to lose reputation as well as gain it. */
export const INITIAL_REPUTATION = 20;

export interface RegisterAgentInput {
  name?: unknown;
  description?: unknown;
  ownerEmail?: unknown;
}

export interface Registration {
  agent: Agent;
  masterKey: string;
  agentKey: string;
}

export async function registerAgent(ctx: Ctx, input: RegisterAgentInput): Promise<Registration> {
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: NAME_MIN, max: NAME_MAX, required: true });
  const description = checks.text('description', input.description, { max: DESCRIPTION_MAX, required: true, multiline: true });
  const ownerEmail = checks.email('ownerEmail', input.ownerEmail);
  checks.done();

  return createAgent(ctx, { name: name!, description: description!, ownerEmail: ownerEmail! });
}

type NewAgent = Pick<Prisma.AgentUncheckedCreateInput, 'name' | 'description' | 'ownerEmail' | 'autonomyLevel' | 'authorityScope' | 'parentId'>;

/**
 * Creates an agent with its master key (shown once, stored hashed) and its first reputation event;
 * `audit` adds entries to the same transaction (the parent's record of a sub-agent, say). A sub-agent
 * starts with its parent's status in force: one created under a suspended agent is suspended with it.
 */
async function createAgent(ctx: Ctx, data: NewAgent, audit?: (tx: DbTx, created: Agent) => Promise<void>): Promise<Registration> {
  const agentKey = newAgentKey();
  const masterKey = newMasterKey();
  try {
    const agent = await ctx.db.$transaction(async (tx) => {
      const status = data.parentId ? await statusForChildOf(tx, data.parentId) : undefined;
      const created = await tx.agent.create({
        data: {
          ...data,
          status,
          agentKey,
          reputation: INITIAL_REPUTATION,
          credentials: { create: { kind: 'master', hash: sha256Hex(masterKey), hint: secretHint(masterKey) } },
        },
      });
      await tx.reputationEvent.create({ data: { agentId: created.id, delta: INITIAL_REPUTATION, scoreAfter: INITIAL_REPUTATION, reason: 'registered' } });
      await recordAudit(tx, ctx, {
        agentId: created.id,
        action: 'agent.registered',
        targetType: 'agent',
        targetId: created.id,
        details: data.parentId ? { parent_id: data.parentId } : {},
      });
      await audit?.(tx, created);
      return created;
    });
    return { agent, masterKey, agentKey };
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`An agent named "${data.name}" already exists`);
    throw err;
  }
}

/** The caller's own record; reuses the row loaded for authentication when no relation is asked for. */
export async function getMe(ctx: Ctx, query: AgentQuery = {}): Promise<Agent> {
  const agent = await requireAgent(ctx);
  if (!query.include && !query.select) return agent;
  return ctx.db.agent.findUniqueOrThrow({ ...query, where: { id: agent.id } });
}

export interface UpdateMeInput {
  name?: unknown;
  description?: unknown;
  capabilities?: unknown;
}

export async function updateMe(ctx: Ctx, input: UpdateMeInput, query: AgentQuery = {}): Promise<Agent> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: NAME_MIN, max: NAME_MAX });
  const description = checks.text('description', input.description, { max: DESCRIPTION_MAX, multiline: true, min: 1 });
  const capabilities = checks.slugs('capabilities', input.capabilities, CAPABILITIES_MAX);
  checks.done();

  const data: Prisma.AgentUpdateInput = {};
  if (name !== undefined && name !== me.name) data.name = name;
  if (description !== undefined && description !== me.description) data.description = description;
  if (capabilities !== undefined && capabilities.join('\n') !== me.capabilities.join('\n')) data.capabilities = capabilities;
  const changed = Object.keys(data);
  if (changed.length === 0) return getMe(ctx, query);

  try {
    return await transact(ctx, async (tx, emit) => {
      const updated = await tx.agent.update({ where: { id: me.id }, data });
      await recordAudit(tx, ctx, { agentId: me.id, action: 'profile.updated', targetType: 'agent', targetId: me.id, details: { changed } });
      await emit(me.id, 'agent.updated', {
        agent_id: me.id,
        changed,
        name: updated.name,
        description: updated.description,
        capabilities: updated.capabilities,
      });
      return query.include || query.select ? tx.agent.findUniqueOrThrow({ ...query, where: { id: me.id } }) : updated;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`An agent named "${name}" already exists`);
    throw err;
  }
}

const AUTONOMY_ORDER = ['EXECUTE_ONLY', 'DELEGATE', 'CREATE', 'GOVERN'] as const;
export type AutonomyLevel = (typeof AUTONOMY_ORDER)[number];
const SCOPE_PREFIX = /^[a-z0-9][a-z0-9.-]{0,63}$/;

export interface CreateSubAgentInput {
  name?: unknown;
  description?: unknown;
  autonomyLevel?: unknown;
  authorityScope?: unknown;
}

/** A scope prefix is inside a parent's scope when one of the parent's prefixes starts it. */
function withinScope(prefix: string, parentScope: string[]): boolean {
  return parentScope.length === 0 || parentScope.some((p) => prefix.startsWith(p));
}

/**
 * Creates a sub-agent of `parentId`. The caller must be that agent or one of its ancestors; the
 * sub-agent's autonomy may not exceed its parent's, its scope must lie inside the parent's, and only a
 * parent with autonomy CREATE or GOVERN may have sub-agents.
 */
/**
 * The agent `agentId` when the caller is that agent or one of its ancestors (a parent manages its
 * sub-agents); any other agent is not found.
 */
export async function agentInReach(ctx: Ctx, agentId: string): Promise<Agent> {
  const me = await requireAgent(ctx);
  if (agentId === me.id) return me;
  if (!isUuid(agentId)) throw new NotFound('agent', agentId);
  const chain = await ctx.services.sql.query<{ id: string }>(
    `WITH RECURSIVE up AS (SELECT id, parent_id, 0 AS depth FROM agents WHERE id = $1::uuid
       UNION ALL SELECT a.id, a.parent_id, up.depth + 1 FROM agents a JOIN up ON a.id = up.parent_id WHERE up.depth < 32)
     SELECT id FROM up`,
    [agentId],
  );
  if (!chain.some((row) => row.id === me.id)) throw new NotFound('agent', agentId);
  return ctx.db.agent.findUniqueOrThrow({ where: { id: agentId } });
}

export async function createSubAgent(ctx: Ctx, parentId: string, input: CreateSubAgentInput): Promise<Registration> {
  const parent = await agentInReach(ctx, parentId);

  const checks = new Checks();
  const name = checks.text('name', input.name, { min: NAME_MIN, max: NAME_MAX, required: true });
  const description = checks.text('description', input.description, { max: DESCRIPTION_MAX, required: true, multiline: true });
  const level = input.autonomyLevel;
  if (level === undefined || level === null) checks.fail('autonomyLevel', 'is required');
  else if (!AUTONOMY_ORDER.includes(level as AutonomyLevel)) checks.fail('autonomyLevel', `must be one of ${AUTONOMY_ORDER.join(', ')}`);
  let scope: string[] = [];
  if (!Array.isArray(input.authorityScope))
    checks.fail('authorityScope', input.authorityScope === undefined ? 'is required' : 'must be a list of capability prefixes');
  else {
    if (input.authorityScope.length > CAPABILITIES_MAX) checks.fail('authorityScope', `must have at most ${CAPABILITIES_MAX} entries`);
    input.authorityScope.forEach((p, i) => {
      if (typeof p !== 'string' || !SCOPE_PREFIX.test(p))
        checks.fail(`authorityScope.${i}`, 'must be a capability prefix of lower-case letters, digits, dots and dashes');
    });
    scope = [...new Set(input.authorityScope as string[])];
  }
  checks.done();

  const autonomyLevel = level as AutonomyLevel;
  if (AUTONOMY_ORDER.indexOf(parent.autonomyLevel) < AUTONOMY_ORDER.indexOf('CREATE')) {
    throw new Forbidden(`An agent with autonomy ${parent.autonomyLevel} may not have sub-agents`);
  }
  if (AUTONOMY_ORDER.indexOf(autonomyLevel) > AUTONOMY_ORDER.indexOf(parent.autonomyLevel)) {
    throw new Forbidden(`A sub-agent's autonomy may not exceed its parent's (${parent.autonomyLevel})`);
  }
  const outside = scope.filter((p) => !withinScope(p, parent.authorityScope));
  if (outside.length) throw new Forbidden(`authorityScope ${outside.join(', ')} lies outside the parent's scope`);

  return createAgent(
    ctx,
    {
      name: name!,
      description: description!,
      ownerEmail: parent.ownerEmail,
      autonomyLevel,
      authorityScope: scope.length ? scope : parent.authorityScope,
      parentId: parent.id,
    },
    (tx, created) =>
      recordAudit(tx, ctx, {
        agentId: parent.id,
        action: 'subagent.created',
        targetType: 'agent',
        targetId: created.id,
        details: { sub_agent_id: created.id, autonomy_level: autonomyLevel, authority_scope: created.authorityScope },
      }),
  );
}
