// The gateway's capability directory: capabilities agents register for others to find (with a description,
// an input schema and the endpoint that serves them), searched together with the catalog, the marketplace's
// services and what external agents declare, each hit saying where it lives.
import type { ExternalCapability } from '../../db/generated/prisma/client';
import type { Prisma } from '../../db/generated/prisma/client';
import { Conflict } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { externalAgentOf } from './agents';

const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_EXTERNAL_CAPABILITIES = 500;

export interface RegisterExternalCapabilityInput {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  endpoint?: unknown;
  externalAgentId?: unknown;
  priceCents?: unknown;
}

/** A JSON Schema object: an object whose `type` (when given) is `object`, at most 64 KiB. */
export function checkInputSchema(checks: Checks, path: string, value: unknown, required = true): Record<string, unknown> | undefined {
  if (value === undefined || value === null) {
    if (required) checks.fail(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    checks.fail(path, 'must be a JSON Schema object');
    return undefined;
  }
  const schema = value as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== 'object') checks.fail(`${path}.type`, 'must be object (a tool takes named arguments)');
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) checks.fail(path, 'must be at most 64 KiB');
  return schema;
}

export async function registerExternalCapability(ctx: Ctx, input: RegisterExternalCapabilityInput): Promise<ExternalCapability> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const name = checks.text('name', input.name, { max: 64, required: true });
  if (name && !/^[a-z0-9][a-z0-9.-]{0,63}$/.test(name))
    checks.fail('name', 'must be an identifier of lower-case letters, digits, dots and dashes (at most 64)');
  const description = checks.text('description', input.description, { max: 1000, required: true, multiline: true });
  const inputSchema = checkInputSchema(checks, 'input_schema', input.inputSchema);
  const endpoint = checks.receiverUrl('endpoint', input.endpoint, ctx.services.config.outboundAllowPrivate, true);
  const externalAgentId = checks.text('external_agent_id', input.externalAgentId, { max: 64 }) || null;
  const priceCents = checks.integer('price_cents', input.priceCents, 0, 1_000_000) ?? 0;
  checks.done();
  if (externalAgentId) await externalAgentOf(ctx, me.id, externalAgentId);
  try {
    return await ctx.db.$transaction(async (tx) => {
      if ((await tx.externalCapability.count({ where: { ownerId: me.id } })) >= MAX_EXTERNAL_CAPABILITIES)
        throw new Conflict(`An agent may register at most ${MAX_EXTERNAL_CAPABILITIES} capabilities`);
      return tx.externalCapability.create({
        data: {
          ownerId: me.id,
          name: name!,
          description: description!,
          inputSchema: inputSchema as Prisma.InputJsonValue,
          endpoint: endpoint!,
          externalAgentId,
          priceCents,
        },
      });
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new Conflict(`This agent already registered a capability named ${name}`);
    throw err;
  }
}

export type CapabilitySource = 'catalog' | 'marketplace' | 'external';

/** One search hit and where it lives. */
export interface CapabilityHit {
  /** The catalog slug, the service's, the external capability's or the external agent's id. */
  id: string;
  capability: string;
  name: string;
  description: string;
  source: CapabilitySource;
  /** `catalog`, `service`, `external_capability` or `external_agent`. */
  kind: string;
  serviceId: string | null;
  providerAgentId: string | null;
  externalAgentId: string | null;
  /** Where to call it: the marketplace's `POST /api/v1/execute` for the catalog and services, the endpoint (or the instance) for external ones. */
  endpoint: string;
  inputSchema: unknown;
  priceCents: number | null;
}

interface HitRow {
  id: string;
  capability: string;
  name: string;
  description: string;
  source: CapabilitySource;
  kind: string;
  service_id: string | null;
  provider_agent_id: string | null;
  external_agent_id: string | null;
  endpoint: string | null;
  input_schema: unknown;
  price_cents: number | null;
  total: number;
}

/** `%` and `_` are literal in a search. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Each part filters by capability ($1, exact) and text ($2, a LIKE pattern): the catalog, active services
// of active providers (their endpoints are the provider's own: calls go through execute), registered
// capabilities, and what external agents declare.
const SEARCH_SQL = `
  WITH hits AS (
    SELECT c.slug AS id, c.slug AS capability, c.name, coalesce(c.description, '') AS description, 'catalog' AS source, 'catalog' AS kind, 0 AS rank,
      NULL::uuid AS service_id, NULL::uuid AS provider_agent_id, NULL::uuid AS external_agent_id, NULL AS endpoint, NULL::jsonb AS input_schema, NULL::int AS price_cents
    FROM capabilities c
    WHERE ($1::text IS NULL OR c.slug = $1) AND ($2::text IS NULL OR c.slug ILIKE $2 OR c.name ILIKE $2 OR c.description ILIKE $2)
    UNION ALL
    SELECT s.id::text, cap, s.name, s.description, 'marketplace', 'service', 1, s.id, s.agent_id, NULL, NULL, NULL, s.cost_per_call
    FROM services s JOIN agents a ON a.id = s.agent_id AND a.status = 'ACTIVE' CROSS JOIN LATERAL unnest(s.capabilities) AS cap
    WHERE s.status = 'active' AND ($1::text IS NULL OR s.capabilities @> ARRAY[$1::text]) AND ($1::text IS NULL OR cap = $1)
      AND ($2::text IS NULL OR cap ILIKE $2 OR s.name ILIKE $2 OR s.description ILIKE $2)
    UNION ALL
    SELECT x.id::text, x.name, x.name, x.description, 'external', 'external_capability', 2, NULL, x.owner_id, x.external_agent_id, x.endpoint, x.input_schema, x.price_cents
    FROM external_capabilities x
    WHERE ($1::text IS NULL OR x.name = $1) AND ($2::text IS NULL OR x.name ILIKE $2 OR x.description ILIKE $2)
    UNION ALL
    SELECT e.id::text, cap, e.name, e.description, 'external', 'external_agent', 3, NULL, e.owner_id, e.id, e.instance_url, NULL, NULL
    FROM external_agents e CROSS JOIN LATERAL unnest(e.capabilities) AS cap
    WHERE ($1::text IS NULL OR e.capabilities @> ARRAY[$1::text]) AND ($1::text IS NULL OR cap = $1)
      AND ($2::text IS NULL OR cap ILIKE $2 OR e.name ILIKE $2 OR e.description ILIKE $2)
  )
  SELECT id, capability, name, description, source, kind, service_id, provider_agent_id, external_agent_id, endpoint, input_schema, price_cents,
    count(*) OVER ()::int AS total
  FROM hits WHERE ($3::text IS NULL OR source = $3)
  ORDER BY capability, rank, name, id LIMIT $4 OFFSET $5`;

export async function searchCapabilities(
  ctx: Ctx,
  input: { q?: unknown; capability?: unknown; source?: unknown },
  page: Page,
): Promise<{ items: CapabilityHit[]; total: number }> {
  await requireAgent(ctx);
  const checks = new Checks();
  const q = checks.text('q', input.q, { max: 200 }) || null;
  const capability = checks.text('capability', input.capability, { max: 64 }) || null;
  const source =
    input.source === undefined || input.source === null ? null : checks.oneOf('source', input.source, ['catalog', 'marketplace', 'external'] as const);
  checks.done();
  const rows = await ctx.services.sql.query<HitRow>(SEARCH_SQL, [capability, q && likePattern(q), source, page.limit, page.offset]);
  const executeUrl = `${ctx.services.config.publicBaseUrl}/api/v1/execute`;
  const items = rows.map((r) => ({
    id: r.id,
    capability: r.capability,
    name: r.name,
    description: r.description,
    source: r.source,
    kind: r.kind,
    serviceId: r.service_id,
    providerAgentId: r.provider_agent_id,
    externalAgentId: r.external_agent_id,
    endpoint: r.endpoint ?? executeUrl,
    inputSchema: r.input_schema,
    priceCents: r.price_cents,
  }));
  // A page past the end has no rows to carry the total: count it then.
  let total = rows[0]?.total ?? 0;
  if (!rows.length && page.offset > 0)
    total = (await ctx.services.sql.query<HitRow>(SEARCH_SQL, [capability, q && likePattern(q), source, 1, 0]))[0]?.total ?? 0;
  return { items, total };
}
