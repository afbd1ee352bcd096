// Finding capabilities: the catalog searched by words over slug, name and description, each capability
// with what its active providers offer (how many, the lowest price, the best reputation), narrowed to the
// providers that meet a caller's limits. The MCP tool `searchCapabilities`, its resources and
// `GET /capabilities/search` read it.
import { NotFound } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import type { Ctx } from '../context';
import { CAPABILITY_SLUG, CATALOG, COMMUNITY_GROUP } from './catalog';

/** The categories a search may name: the catalog's groups. */
export const CATEGORIES = [...Object.keys(CATALOG), COMMUNITY_GROUP];

export interface CapabilityFilter {
  query?: string | null;
  category?: string | null;
  language?: string | null;
  minReputation?: number | null;
  /** Cents per call (a number: 12.5 admits offers of 12 cents). */
  maxPricePerCall?: number | null;
}

export interface CapabilitySummary {
  slug: string;
  name: string;
  category: string;
  parentSlug: string | null;
  description: string | null;
  builtin: boolean;
  /** Active providers that meet the filter's limits. */
  providers: number;
  minPriceCents: number | null;
  maxPriceCents: number | null;
  bestReputation: number | null;
}

const MAX_WORDS = 8;

interface Read {
  words: string[];
  category: string | null;
  language: string | null;
  minReputation: number;
  maxPrice: number | null;
  /** Whether a provider limit was given: then only capabilities some provider meets are listed. */
  limited: boolean;
}

function readFilter(filter: CapabilityFilter): Read {
  const checks = new Checks();
  const query = checks.text('query', filter.query, { max: 200 }) ?? '';
  const words = [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
  if (words.length > MAX_WORDS) checks.fail('query', `must have at most ${MAX_WORDS} words`);
  const category = checks.text('category', filter.category, { max: 64 }) || null;
  if (category && !CATEGORIES.includes(category)) checks.fail('category', `must be one of ${CATEGORIES.join(', ')}`);
  const language = checks.text('language', filter.language, { max: 35 }) || null;
  const min = filter.minReputation;
  if (min !== undefined && min !== null && (!Number.isFinite(min) || min < 0 || min > 100)) checks.fail('minReputation', 'must be a number from 0 to 100');
  const max = filter.maxPricePerCall;
  if (max !== undefined && max !== null && (!Number.isFinite(max) || max < 0)) checks.fail('maxPricePerCall', 'must be a number of cents, 0 or more');
  checks.done();
  return {
    words,
    category,
    language,
    minReputation: min ?? 0,
    maxPrice: max ?? null,
    limited: (min ?? null) !== null || (max ?? null) !== null || language !== null,
  };
}

/** LIKE's wildcards in a word taken literally. */
function likeText(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One statement: the qualifying offers of each matching capability aggregated, with the total of matches
 * beside each row. Relevance: an exact slug first, then slugs that start with the first word, then the
 * most providers.
 */
function searchSql(read: Read, slug: string | null): { text: string; params: unknown[] } {
  const params: unknown[] = [read.minReputation, read.maxPrice, read.language];
  const where: string[] = [];
  if (slug !== null) {
    params.push(slug);
    where.push(`c.slug = $${params.length}`);
  }
  for (const word of read.words) {
    params.push(likeText(word));
    const p = `$${params.length}`;
    where.push(`(c.slug ILIKE ${p} OR c.name ILIKE ${p} OR coalesce(c.description, '') ILIKE ${p})`);
  }
  if (read.category) {
    params.push(read.category);
    where.push(`c.group_name = $${params.length}`);
  }
  params.push(read.words[0] ?? '');
  const first = `$${params.length}`;
  const text = `
    SELECT c.slug, c.name, c.group_name AS category, c.parent_slug AS "parentSlug", c.description, c.builtin,
           count(o.service_id)::int AS providers, min(o.cost_per_call) AS "minPriceCents", max(o.cost_per_call) AS "maxPriceCents",
           max(o.reputation) AS "bestReputation", count(*) OVER ()::int AS total
    FROM capabilities c
    LEFT JOIN service_offers o ON o.capability = c.slug AND o.active AND o.reputation >= $1
      AND ($2::float8 IS NULL OR o.cost_per_call <= $2::float8)
      AND ($3::text IS NULL OR cardinality(o.languages) = 0 OR o.languages @> ARRAY[$3::text])
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    GROUP BY c.slug
    ${read.limited ? 'HAVING count(o.service_id) > 0' : ''}
    ORDER BY (c.slug = ${first}) DESC, (${first} <> '' AND c.slug LIKE ${first} || '%') DESC, count(o.service_id) DESC, c.builtin DESC, c.slug ASC`;
  return { text, params };
}

type Row = CapabilitySummary & { total: number };

/** Capabilities matching every word (and the category), best first, with a total. */
export async function searchCapabilities(
  ctx: Ctx,
  filter: CapabilityFilter,
  page: { offset: number; limit: number },
): Promise<{ items: CapabilitySummary[]; total: number }> {
  const read = readFilter(filter);
  const { text, params } = searchSql(read, null);
  params.push(page.limit, page.offset);
  const rows = await ctx.services.sql.query<Row>(`${text} LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
  // Past the last page there is no row to carry the total: count without the page.
  const total =
    rows[0]?.total ??
    (page.offset > 0 ? (await ctx.services.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${text}) m`, params.slice(0, -2)))[0].n : 0);
  return { items: rows.map(({ total: _t, ...c }) => c), total };
}

/** One capability of the catalog with its providers' offer (404 for a slug not in the catalog). */
export async function capabilityDetail(ctx: Ctx, slug: string, filter: CapabilityFilter = {}): Promise<CapabilitySummary> {
  const checks = new Checks();
  if (!CAPABILITY_SLUG.test(slug) || slug.length > 64) checks.fail('slug', 'must be a capability identifier such as "summarize"');
  checks.done();
  const read = { ...readFilter(filter), limited: false };
  const { text, params } = searchSql(read, slug);
  const [row] = await ctx.services.sql.query<Row>(text, params);
  if (!row) throw new NotFound('capability', slug);
  const { total: _t, ...capability } = row;
  return capability;
}
