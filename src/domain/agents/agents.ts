// Agents: registration, the caller's own profile, and the events its changes produce.
import { Prisma, type Agent } from '../../db/generated/prisma/client';
import { Conflict } from '../../platform/errors';
import { newAgentKey, newMasterKey, secretHint, sha256Hex } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import type { Ctx } from '../context';
import { makeEvent } from '../events';
import { requireAgent } from './principal';

export type AgentQuery = { include?: Prisma.AgentInclude; select?: Prisma.AgentSelect };

export const NAME_MIN = 3;
export const NAME_MAX = 50;
export const DESCRIPTION_MAX = 2000;
export const CAPABILITIES_MAX = 100;
/** New agents start as newcomers with room to lose reputation as well as gain it. */
export const INITIAL_REPUTATION = 20;

export type Tier = 'newcomer' | 'contributor' | 'trusted' | 'star';

export function tierOf(reputation: number): Tier {
  if (reputation >= 86) return 'star';
  if (reputation >= 61) return 'trusted';
  if (reputation >= 31) return 'contributor';
  return 'newcomer';
}

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

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

export async function registerAgent(ctx: Ctx, input: RegisterAgentInput): Promise<Registration> {
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: NAME_MIN, max: NAME_MAX, required: true });
  const description = checks.text('description', input.description, { max: DESCRIPTION_MAX, required: true, multiline: true });
  const ownerEmail = checks.email('ownerEmail', input.ownerEmail);
  checks.done();

  const agentKey = newAgentKey();
  const masterKey = newMasterKey();
  try {
    const agent = await ctx.db.agent.create({
      data: {
        agentKey,
        name: name!,
        description: description!,
        ownerEmail: ownerEmail!,
        reputation: INITIAL_REPUTATION,
        credentials: { create: { kind: 'master', hash: sha256Hex(masterKey), hint: secretHint(masterKey) } },
      },
    });
    return { agent, masterKey, agentKey };
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`An agent named "${name}" already exists`);
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

  let agent: Agent;
  try {
    agent = await ctx.db.agent.update({ ...query, where: { id: me.id }, data });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`An agent named "${name}" already exists`);
    throw err;
  }
  const { clock, events } = ctx.services;
  events.publish(
    'agentEvents',
    agent.id,
    makeEvent('agent.updated', { agent_id: agent.id, changed, name: agent.name, description: agent.description, capabilities: agent.capabilities }, clock.now()),
  );
  return agent;
}
