// External agents: agents that live elsewhere, registered by a marketplace agent (their owner) with their
// instance's HTTPS URL. Connecting fetches the instance's A2A agent card through the SSRF-guarded client and
// checks it; the owner polls the events addressed to its external agents (gateway-events.ts).
import type { ExternalAgent, Prisma } from '../../db/generated/prisma/client';
import { BadRequest, Conflict, NotFound } from '../../platform/errors';
import { isUuid, newSigningSecret } from '../../platform/ids';
import { OutboundError } from '../../platform/outbound';
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { appendGatewayEvent } from './gateway-events';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
const CARD_TIMEOUT_MS = 10_000;
const MAX_CARD_BYTES = 256 * 1024;
/** External agents one owner may register. */
export const MAX_EXTERNAL_AGENTS = 100;

export interface RegisterExternalAgentInput {
  instanceUrl?: unknown;
  capabilities?: unknown;
  name?: unknown;
  description?: unknown;
}

/** An external agent with the secret its deliveries are signed with (answered once, at registration). */
export interface RegisteredExternalAgent {
  agent: ExternalAgent;
  secret: string;
}

function readInstanceUrl(ctx: Ctx, checks: Checks, value: unknown): string | undefined {
  // What the outbound guard accepts (HTTPS, no credentials, no private literal unless allowed), in one form.
  const before = checks.errors.length;
  const url = checks.receiverUrl('instance_url', value, ctx.services.config.outboundAllowPrivate, true);
  if (!url || checks.errors.length > before) return undefined;
  const parsed = new URL(url);
  if (parsed.search || parsed.hash) checks.fail('instance_url', 'must not carry a query or a fragment');
  return parsed.toString();
}

export async function registerExternalAgent(ctx: Ctx, input: RegisterExternalAgentInput): Promise<RegisteredExternalAgent> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const instanceUrl = readInstanceUrl(ctx, checks, input.instanceUrl);
  if (input.capabilities === undefined || input.capabilities === null) checks.fail('capabilities', 'is required');
  const capabilities = checks.slugs('capabilities', input.capabilities, 50);
  if (capabilities && capabilities.length === 0) checks.fail('capabilities', 'must name at least one capability');
  const name = checks.text('name', input.name, { max: 100 });
  const description = checks.text('description', input.description, { max: 1000, multiline: true }) ?? '';
  checks.done();
  const secret = newSigningSecret();
  const host = new URL(instanceUrl!).host;
  try {
    const agent = await ctx.db.$transaction(async (tx) => {
      const count = await tx.externalAgent.count({ where: { ownerId: me.id } });
      if (count >= MAX_EXTERNAL_AGENTS) throw new Conflict(`An agent may register at most ${MAX_EXTERNAL_AGENTS} external agents`);
      return tx.externalAgent.create({
        data: { ownerId: me.id, instanceUrl: instanceUrl!, capabilities: capabilities!, name: name || host, description, secret },
      });
    });
    return { agent, secret };
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new Conflict(`An external agent at ${instanceUrl} is already registered by this agent`);
    throw err;
  }
}

/** One of the caller's external agents (another agent's is not found). */
export async function externalAgentOf(ctx: Ctx, ownerId: string, id: string): Promise<ExternalAgent> {
  const agent = isUuid(id) ? await ctx.db.externalAgent.findFirst({ where: { id, ownerId } }) : null;
  if (!agent) throw new NotFound('external agent', id);
  return agent;
}

/** Any registered external agent (for delegations and payments to it). */
export async function externalAgentById(ctx: Ctx, id: string): Promise<ExternalAgent> {
  const agent = isUuid(id) ? await ctx.db.externalAgent.findUnique({ where: { id } }) : null;
  if (!agent) throw new NotFound('external agent', id);
  return agent;
}

export async function listExternalAgents(ctx: Ctx, page: Page): Promise<{ items: ExternalAgent[]; total: number }> {
  const me = await requireAgent(ctx);
  const where = { ownerId: me.id };
  const [items, total] = await Promise.all([
    ctx.db.externalAgent.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: page.offset, take: page.limit }),
    ctx.db.externalAgent.count({ where }),
  ]);
  return { items, total };
}

/** What a connect found in the instance's agent card. */
export interface CardSummary {
  url: string;
  name: string;
  description: string;
  version: string | null;
  protocolVersion: string | null;
  endpoint: string | null;
  skills: { id: string; name: string; description: string; tags: string[] }[];
}

export interface ConnectResult {
  connected: boolean;
  /** Why not, when not: the card could not be fetched, or is not an agent card. */
  reason: string | null;
  agent: ExternalAgent;
  card: CardSummary | null;
}

export function cardUrlOf(instanceUrl: string): string {
  const url = new URL(instanceUrl);
  // An instance URL that names a JSON document is the card itself; otherwise the card is at the well-known path.
  return url.pathname.endsWith('.json') ? url.toString() : new URL(AGENT_CARD_PATH, url.origin).toString();
}

const str = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** Reads an A2A agent card (protocol 0.3 `url`, or 1.0 `supportedInterfaces`); a string says what is wrong. */
export function readAgentCard(raw: unknown, cardUrl: string): CardSummary | string {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'the agent card is not a JSON object';
  const card = raw as Record<string, unknown>;
  if (!str(card.name)) return 'the agent card has no name';
  if (!Array.isArray(card.skills)) return 'the agent card has no skills list';
  const skills: CardSummary['skills'] = [];
  for (const [i, s] of (card.skills as unknown[]).entries()) {
    const skill = (s ?? {}) as Record<string, unknown>;
    if (!str(skill.id) || !str(skill.name)) return `skill ${i} of the agent card has no id or name`;
    skills.push({
      id: skill.id.slice(0, 200),
      name: skill.name.slice(0, 200),
      description: str(skill.description) ? skill.description.slice(0, 2000) : '',
      tags: Array.isArray(skill.tags)
        ? skill.tags
            .filter(str)
            .slice(0, 50)
            .map((t) => t.slice(0, 100))
        : [],
    });
  }
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as Record<string, unknown>[]) : [];
  const endpoint = str(card.url) ? card.url : interfaces.map((i) => i?.url).find(str);
  if (!endpoint) return 'the agent card names no endpoint (`url` or `supportedInterfaces`)';
  try {
    new URL(endpoint);
  } catch {
    return 'the agent card endpoint is not an absolute URL';
  }
  const protocolVersion = str(card.protocolVersion) ? card.protocolVersion : interfaces.map((i) => i?.protocolVersion).find(str);
  return {
    url: cardUrl,
    name: card.name.slice(0, 200),
    description: str(card.description) ? card.description.slice(0, 2000) : '',
    version: str(card.version) ? card.version.slice(0, 50) : null,
    protocolVersion: protocolVersion ?? null,
    endpoint,
    skills: skills.slice(0, 100),
  };
}

/** Fetches and reads a card; a string says why it could not be had (refused addresses throw 400). */
async function fetchCard(ctx: Ctx, cardUrl: string): Promise<CardSummary | string> {
  let res;
  try {
    res = await ctx.services.outbound.get(cardUrl, { headers: { accept: 'application/json' }, timeoutMs: CARD_TIMEOUT_MS, maxResponseBytes: MAX_CARD_BYTES });
  } catch (err) {
    if (err instanceof OutboundError) {
      if (err.reason === 'blocked_address' || err.reason === 'invalid_url')
        throw new BadRequest(`instance_url: ${err.message} (a private or local address is refused unless OUTBOUND_ALLOW_PRIVATE is set)`);
      return `the agent card could not be fetched (${err.reason})`;
    }
    throw err;
  }
  if (res.status < 200 || res.status > 299) return `the agent card answered HTTP ${res.status}`;
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    return 'the agent card is not JSON';
  }
  return readAgentCard(json, cardUrl);
}

/** Capabilities an agent card's skills name that are identifiers (its ids, then its tags). */
function capabilitiesOf(card: CardSummary): string[] {
  const out: string[] = [];
  for (const s of card.skills) for (const c of [s.id, ...s.tags]) if (/^[a-z0-9][a-z0-9.-]{0,63}$/.test(c) && !out.includes(c)) out.push(c);
  return out.slice(0, 50);
}

/**
 * Connects one of the caller's external agents (`external_agent_id`), or the instance at `instance_url`
 * (registered from its card when the caller has not registered it): fetches its agent card and checks it.
 */
export async function connectGateway(ctx: Ctx, input: { externalAgentId?: unknown; instanceUrl?: unknown }): Promise<ConnectResult> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const id = checks.text('external_agent_id', input.externalAgentId, { max: 64 });
  const instanceUrl = input.instanceUrl === undefined || input.instanceUrl === null ? undefined : readInstanceUrl(ctx, checks, input.instanceUrl);
  if (!id && !instanceUrl) checks.fail('external_agent_id', 'external_agent_id or instance_url is required');
  checks.done();
  let agent: ExternalAgent | null = id
    ? await externalAgentOf(ctx, me.id, id)
    : await ctx.db.externalAgent.findFirst({ where: { ownerId: me.id, instanceUrl: instanceUrl! } });
  if (id && instanceUrl && agent!.instanceUrl !== instanceUrl) throw new BadRequest('instance_url: is not the instance of that external agent');
  const cardUrl = cardUrlOf(agent?.instanceUrl ?? instanceUrl!);
  const found = await fetchCard(ctx, cardUrl);
  if (typeof found === 'string') {
    if (!agent) throw new BadRequest(`instance_url: ${found}; an instance is registered on connect only from a valid agent card`);
    return { connected: false, reason: found, agent, card: null };
  }
  const now = ctx.services.clock.now();
  const card = found as unknown as Prisma.InputJsonValue;
  if (!agent) {
    const capabilities = capabilitiesOf(found);
    if (!capabilities.length) throw new BadRequest('instance_url: the agent card names no skill whose id or tags is a capability identifier');
    agent = (await registerExternalAgent(ctx, { instanceUrl, capabilities, name: found.name.slice(0, 100), description: found.description.slice(0, 1000) }))
      .agent;
  }
  const target = agent;
  const connected = await ctx.db.$transaction(async (tx) => {
    const updated = await tx.externalAgent.update({ where: { id: target.id }, data: { status: 'connected', card, connectedAt: now } });
    await appendGatewayEvent(tx, {
      ownerId: me.id,
      externalAgentId: target.id,
      type: 'gateway.connected',
      data: { external_agent_id: target.id, card_url: cardUrl, skills: found.skills.length },
      at: now,
    });
    return updated;
  });
  return { connected: true, reason: null, agent: connected, card: found };
}
