// Discovery's ranking: the active services offering a capability, best first for `prefer`, with their total. It runs in
// the database on `service_offers` (an index per preference in ranking order), never by loading every service into
// memory; with the read cache on, a capability's heads answer most queries.
import type { Ctx } from '../context';
import { MAX_COST_CENTS } from '../services/services';
import { PREFERENCES, type Prefer, type Match, SCORE_COLUMN, type RankedOffer, scoreOffers } from './scoring';

export interface ResolveQuery {
  capability: string;
  prefer: Prefer;
  minReputation: number | null;
  maxCost: number | null;
  language: string | null;
  limit: number;
}

/**
 * Which offers a ranking statement considers. `all` (no reputation, price or language limit, the common
 * case) takes its total from capability_offer_counts; the others take it from a sample (TOTAL_SAMPLE).
 */
type Variant = 'all' | 'limited' | 'language';

/**
 * A limited query's total is counted over at most this many of the capability's active offers (the first in random
 * service id order) and scaled to the capability (`totalIsEstimate`): counting every qualifying offer would cost in
 * proportion to the capability's size. Its error is in docs/discovery.md (Resolve: totals with limits).
 */
export const TOTAL_SAMPLE = 200;

/**
 * When a limited ranking reads the offers that pass and sorts them instead of walking its preference's index: when
 * the sample says fewer than FEW_FACTOR × `limit` pass, since a limit almost nothing passes would walk the whole
 * capability. A wrong guess costs time, never a different answer (docs/discovery.md, Resolve).
 */
export const FEW_FACTOR = 10;

/** Whether a limited query reads its passing offers rather than walking (FEW_FACTOR), from its sample. */
export function fewQualify(offers: number, [sampled, qualifying]: [sampled: number, qualifying: number], limit: number): boolean {
  return sampled > 0 && offers * qualifying < FEW_FACTOR * limit * sampled;
}

/** How a ranking statement reads its matches: walking its preference's index, or the passing offers sorted. */
type Read = 'walk' | 'few';

/**
 * The ranking statement of one preference and variant (parameters in rankStatement). A limited one reads the sample,
 * then its matches as fewQualify chooses: only the CASE's chosen subquery runs (an init plan runs when first needed).
 * With `read` given it reads the matches alone, for a query taking its total and choice from the kept heads.
 */
function rankSql(prefer: Prefer, variant: Variant, read?: Read): string {
  let qualifies = '';
  if (variant !== 'all') qualifies += ' AND o.reputation >= $2 AND o.cost_per_call <= $3';
  // A service that lists languages must list the one asked for. Written as NOT (lists some AND not this one) rather
  // than (lists none OR this one): the same rows, but a generic plan then guesses most rows pass rather than very
  // few, and keeps walking the preference's index instead of sorting the capability (docs/discovery.md, Ranking in
  // the database).
  if (variant === 'language') qualifies += ' AND NOT (cardinality(o.languages) > 0 AND NOT o.languages @> ARRAY[$4::text])';
  const filter = `o.capability = $1 AND o.active${qualifies}`;
  const limit = { all: '$2', limited: '$4', language: '$5' }[variant];
  const score = `o.${SCORE_COLUMN[prefer]}`;
  // `score + 0` orders as the score does, but no index holds it: the plan reads the offers that pass from
  // the (capability, active, reputation, cost) index and sorts them (see FEW_FACTOR).
  const matches = (how: Read) => `COALESCE((SELECT json_agg(top.listing) FROM (SELECT o.listing FROM service_offers o WHERE ${filter}
      ORDER BY ${how === 'walk' ? score : `${score} + 0`} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT ${limit}) AS top), '[]'::json)`;
  const offers = 'COALESCE((SELECT active_offers FROM capability_offer_counts WHERE capability = $1), 0)';
  if (variant === 'all') return `SELECT json_build_object('total', ${offers}, 'matches', ${matches('walk')}) AS ranking`;
  if (read) return `SELECT json_build_object('matches', ${matches(read)}) AS ranking`;
  return `
  SELECT json_build_object('offers', c.offers, 'sample', json_build_array(s.sampled, s.qualifying), 'matches',
    CASE WHEN s.sampled > 0 AND c.offers * s.qualifying < ${FEW_FACTOR} * ${limit} * s.sampled THEN ${matches('few')} ELSE ${matches('walk')} END) AS ranking
  FROM (SELECT ${offers} AS offers OFFSET 0) AS c,
    (SELECT count(*) AS sampled, count(*) FILTER (WHERE true${qualifies}) AS qualifying
     FROM (SELECT o.reputation, o.cost_per_call, o.languages FROM service_offers o WHERE o.capability = $1 AND o.active
           ORDER BY o.service_id LIMIT ${TOTAL_SAMPLE}) AS o) AS s`;
}

/** A ranking statement's value: the exact total (`all`), or the capability's offers and a sample of them. */
interface StoredRanking {
  total?: number;
  offers?: number;
  /** How many offers were sampled, and how many of them qualify. */
  sample?: [sampled: number, qualifying: number];
  matches: RankedOffer[];
}

/**
 * A ranking's total: counted, or exact from the sample when it held every offer (or when the ranking
 * itself read every qualifying offer, fewer than `limit`), else estimated from the sample's share.
 */
function totalOf(ranking: StoredRanking, limit: number): { total: number; totalIsEstimate: boolean } {
  if (ranking.total !== undefined) return { total: ranking.total, totalIsEstimate: false };
  const [sampled, qualifying] = ranking.sample!;
  const found = ranking.matches.length;
  if (found < limit) return { total: found, totalIsEstimate: false };
  if (sampled < TOTAL_SAMPLE || sampled >= ranking.offers!) return { total: qualifying, totalIsEstimate: false };
  return { total: Math.max(found, Math.round((ranking.offers! * qualifying) / sampled)), totalIsEstimate: true };
}

const VARIANTS: Variant[] = ['all', 'limited', 'language'];

/**
 * The twelve ranking statements (four preferences, three variants), built once and planned generically per connection
 * (see SqlRunner): the indexes hold the ranking's whole order, so any parameters read one index. Each offer carries its
 * listing and the answer is one JSON value, so nothing is joined or built per match (docs/discovery.md, Ranking in the database).
 */
export const RANK_STATEMENTS = Object.fromEntries(
  PREFERENCES.flatMap((prefer) => VARIANTS.map((variant) => [`${prefer}:${variant}`, { name: `rank_${prefer}_${variant}`, text: rankSql(prefer, variant) }])),
) as Record<`${Prefer}:${Variant}`, { name: string; text: string }>;

/**
 * The limited variants' statements without their total, each way of reading, for a query whose capability's kept heads
 * do not hold its ranking: the heads' count and sample are those its own statement would read, and reading that sample
 * (scattered heap pages) was the costliest part of such a statement on the embedded database.
 */
export const MATCHES_STATEMENTS = Object.fromEntries(
  PREFERENCES.flatMap((prefer) =>
    VARIANTS.filter((v) => v !== 'all').flatMap((variant) =>
      (['walk', 'few'] as const).map((read) => [
        `${prefer}:${variant}:${read}`,
        { name: `rank_${prefer}_${variant}_${read}`, text: rankSql(prefer, variant, read) },
      ]),
    ),
  ),
) as Record<`${Prefer}:${Exclude<Variant, 'all'>}:${Read}`, { name: string; text: string }>;

/** Which statement a query needs: limits that keep every offer are no limits. */
function variantOf(query: ResolveQuery): Variant {
  if (query.language !== null) return 'language';
  return (query.minReputation ?? 0) > 0 || (query.maxCost ?? MAX_COST_CENTS) < MAX_COST_CENTS ? 'limited' : 'all';
}

/** The statement and parameters that answer a query; with `matchesOnly`, its matches alone, read that way. */
function rankStatement(query: ResolveQuery, matchesOnly?: Read): { name: string; text: string; params: unknown[] } {
  const minReputation = query.minReputation ?? 0;
  const maxCost = query.maxCost ?? MAX_COST_CENTS;
  const variant = variantOf(query);
  const params: unknown[] =
    variant === 'all'
      ? [query.capability, query.limit]
      : variant === 'limited'
        ? [query.capability, minReputation, maxCost, query.limit]
        : [query.capability, minReputation, maxCost, query.language, query.limit];
  return {
    ...(matchesOnly && variant !== 'all' ? MATCHES_STATEMENTS[`${query.prefer}:${variant}:${matchesOnly}`] : RANK_STATEMENTS[`${query.prefer}:${variant}`]),
    params,
  };
}

/**
 * How deep a capability's kept heads go (capabilityHeads): a query whose `limit` passing offers are all in its
 * preference's head is answered from it, others read their own statement. Deep enough for the default limit and most
 * limited queries of the benchmark's pool; deeper costs bytes read and kept (docs/discovery.md, A capability's heads).
 */
export const HEAD_DEPTH = 50;

/**
 * A capability's heads in one statement: its offers' count, its total sample (as rankSql samples) and each preference's
 * first HEAD_DEPTH offers with their limits' columns beside the listing (taking them out of the listing parsed it again).
 * Read as text, which the read cache weighs it by, each listing parsed when a query first takes it (keptHeads).
 */
const HEADS_SQL = `SELECT json_build_object(
  'offers', COALESCE((SELECT active_offers FROM capability_offer_counts WHERE capability = $1), 0),
  'sample', (SELECT COALESCE(json_agg(json_build_array(o.reputation, o.cost_per_call, o.languages)), '[]'::json)
    FROM (SELECT o.reputation, o.cost_per_call, o.languages FROM service_offers o WHERE o.capability = $1 AND o.active
          ORDER BY o.service_id LIMIT ${TOTAL_SAMPLE}) AS o),
  ${PREFERENCES.map(
    (prefer) => `'${prefer}', (SELECT COALESCE(json_agg(json_build_array(top.listing::text, top.languages, top.reputation, top.cost_per_call)), '[]'::json)
    FROM (SELECT o.listing, o.languages, o.reputation, o.cost_per_call FROM service_offers o WHERE o.capability = $1 AND o.active
          ORDER BY o.${SCORE_COLUMN[prefer]} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT ${HEAD_DEPTH}) AS top)`,
  ).join(',\n  ')})::text AS heads`;

/** HEADS_SQL's value. */
type HeadsRead = { offers: number; sample: [reputation: number, costCents: number, languages: string[]][] } & Record<
  Prefer,
  [listing: string, languages: string[], reputation: number, costCents: number][]
>;

/** Offers' reputations, prices and languages, one array each, in the offers' order. */
interface Limits {
  reputation: Float64Array;
  costCents: Float64Array;
  /** One array per set of languages the offers list (most offers share a few). */
  languages: string[][];
}

/** A preference's head as kept: its listings' text, each parsed once a query takes it, and the limits' columns. */
interface Head extends Limits {
  listings: string[];
  offers: (RankedOffer | undefined)[];
}

/** A capability's heads as kept (keptHeads). */
interface CapabilityHeads {
  offers: number;
  sample: Limits;
  heads: Record<Prefer, Head>;
}

/**
 * The heads as the read cache keeps them: a few dozen objects rather than a parsed statement's thousands, which the
 * garbage collector would copy, promote and trace until they expire. A listing is parsed when a query first takes it,
 * and kept parsed: most queries take a head's first few (docs/discovery.md, What is kept, and how).
 */
function keptHeads(read: HeadsRead): CapabilityHeads {
  const sets = new Map<string, string[]>();
  const shared = (languages: string[]) => {
    if (languages.length === 0) return NO_LANGUAGES;
    const key = JSON.stringify(languages);
    let kept = sets.get(key);
    if (!kept) sets.set(key, (kept = languages));
    return kept;
  };
  const limits = (rows: { length: number }, at: (i: number) => [reputation: number, costCents: number, languages: string[]]): Limits => {
    const out: Limits = { reputation: new Float64Array(rows.length), costCents: new Float64Array(rows.length), languages: new Array<string[]>(rows.length) };
    for (let i = 0; i < rows.length; i++) {
      const [reputation, costCents, languages] = at(i);
      out.reputation[i] = reputation;
      out.costCents[i] = costCents;
      out.languages[i] = shared(languages);
    }
    return out;
  };
  const head = (rows: HeadsRead[Prefer]): Head => ({
    ...limits(rows, (i) => [rows[i][2], rows[i][3], rows[i][1]]),
    listings: rows.map((row) => row[0]),
    offers: new Array<RankedOffer | undefined>(rows.length),
  });
  return {
    offers: read.offers,
    sample: limits(read.sample, (i) => read.sample[i]),
    heads: Object.fromEntries(PREFERENCES.map((prefer) => [prefer, head(read[prefer])])) as Record<Prefer, Head>,
  };
}

const NO_LANGUAGES: string[] = [];

/** The head's i-th offer, parsed from its listing on first use. */
function offerAt(head: Head, i: number): RankedOffer {
  return (head.offers[i] ??= JSON.parse(head.listings[i]) as RankedOffer);
}

/** Whether an offer passes a query's limits, as rankSql's `qualifies` tests them (none for `all`). */
function qualifierOf(query: ResolveQuery): ((reputation: number, costCents: number, languages: string[]) => boolean) | undefined {
  const variant = variantOf(query);
  if (variant === 'all') return undefined;
  const minReputation = query.minReputation ?? 0;
  const maxCost = query.maxCost ?? MAX_COST_CENTS;
  const language = query.language;
  if (variant === 'limited') return (reputation, costCents) => reputation >= minReputation && costCents <= maxCost;
  return (reputation, costCents, languages) => reputation >= minReputation && costCents <= maxCost && (languages.length === 0 || languages.includes(language!));
}

/**
 * The stored ranking a query's statement would read, from its capability's heads; undefined when fewer than `limit`
 * of the head pass and the head is not the whole capability. Filtering a ranking keeps its order, so the offers that
 * pass, read down the head, are the statement's first; the total is made as the statement makes it.
 */
function rankingFromHeads(heads: CapabilityHeads, query: ResolveQuery): StoredRanking | undefined {
  const head = heads.heads[query.prefer];
  const size = head.listings.length;
  const whole = size < HEAD_DEPTH;
  const qualifies = qualifierOf(query);
  const matches: RankedOffer[] = [];
  if (!qualifies) {
    if (query.limit > size && !whole) return undefined;
    for (let i = 0; i < size && i < query.limit; i++) matches.push(offerAt(head, i));
    return { total: heads.offers, matches };
  }
  for (let i = 0; i < size; i++) {
    if (!qualifies(head.reputation[i], head.costCents[i], head.languages[i])) continue;
    if (matches.push(offerAt(head, i)) === query.limit) break;
  }
  if (matches.length < query.limit && !whole) return undefined;
  return { ...totalFromHeads(heads, qualifies), matches };
}

/** A limited query's count and sample, as its statement would read them, from its capability's heads. */
function totalFromHeads(heads: CapabilityHeads, qualifies: NonNullable<ReturnType<typeof qualifierOf>>): Required<Pick<StoredRanking, 'offers' | 'sample'>> {
  const { reputation, costCents, languages } = heads.sample;
  let qualifying = 0;
  for (let i = 0; i < reputation.length; i++) if (qualifies(reputation[i], costCents[i], languages[i])) qualifying++;
  return { offers: heads.offers, sample: [reputation.length, qualifying] };
}

/**
 * A query's ranking, scored exactly as of now. With the read cache on, it comes from the capability's kept heads when
 * they hold it, so one capability's many queries share one read, else from its own statement kept under its parameters;
 * with it off, every query reads its own statement, which reads no more than it needs (docs/discovery.md, Resolve).
 */
export async function rankProviders(ctx: Pick<Ctx, 'services'>, query: ResolveQuery): Promise<{ matches: Match[]; total: number; totalIsEstimate: boolean }> {
  const { readCache, sql } = ctx.services;
  let ranking: StoredRanking | undefined;
  let heads: CapabilityHeads | undefined;
  // More than a head holds is read by its own statement alone (the heads are not read first).
  if (readCache.enabled && query.limit <= HEAD_DEPTH) {
    let bytes = 0;
    heads = await readCache.read(
      `rank_heads\n${query.capability}`,
      async () => {
        const [row] = await sql.query<{ heads: string }>(HEADS_SQL, [query.capability], 'rank_heads');
        bytes = 2 * row.heads.length;
        return keptHeads(JSON.parse(row.heads) as HeadsRead);
      },
      () => bytes,
    );
    ranking = rankingFromHeads(heads, query);
  }
  if (!ranking) {
    // A limited query whose heads are kept takes its total from them, and its statement reads the matches
    // alone, the way the heads' sample chooses.
    const qualifies = heads && qualifierOf(query);
    const total = heads && qualifies && totalFromHeads(heads, qualifies);
    const statement = rankStatement(query, total ? (fewQualify(total.offers, total.sample, query.limit) ? 'few' : 'walk') : undefined);
    ranking = await readCache.read(`${statement.name}\n${JSON.stringify(statement.params)}`, async () => {
      const [row] = await sql.query<{ ranking: StoredRanking }>(statement.text, statement.params, statement.name);
      return row.ranking;
    });
    if (total) ranking = { ...total, matches: ranking.matches };
  }
  return { matches: scoreOffers(ranking.matches, query.prefer, ctx.services.clock.now()), ...totalOf(ranking, query.limit) };
}
