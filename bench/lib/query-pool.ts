// The varied read scenarios' queries: a fixed pool of distinct resolve bodies and skills-marketplace
// query strings, built from a seeded generator so that every run, ours and every peer draw the same pool
// in the same order. A request takes the next draw (uniform over the pool), so what is read varies per
// request the way many agents asking different things make it vary.
import { BENCH_CAPABILITIES, LANGUAGES, PROVIDER_REPUTATIONS, RESOLVE_CAPABILITY, SKILL_CATEGORIES } from '../seed';

/** mulberry32: a small, fast, seeded generator of floats in [0, 1); the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Draws distinct values from `draw` until there are `size` of them (the space must hold that many). */
function distinct<T>(size: number, draw: () => T, key: (value: T) => string): T[] {
  const seen = new Map<string, T>();
  for (let tries = 0; seen.size < size; tries++) {
    if (tries > size * 100) throw new Error(`a pool of ${size} distinct queries could not be drawn (${seen.size} found)`);
    const value = draw();
    seen.set(key(value), value);
  }
  return [...seen.values()];
}

export const POOL_SIZE = 1000;
const POOL_SEED = 36;

/** One resolve query of the pool, as the REST body sends it (snake_case limits, flat). */
export interface ResolveBody {
  capability: string;
  prefer: 'balanced' | 'reputation' | 'cost' | 'latency';
  min_reputation?: number;
  max_cost?: number;
  language?: string;
}

const PREFERS = ['balanced', 'reputation', 'cost', 'latency'] as const;
/** Limits that keep some, most or few of a capability's offers (the seed's reputations and prices). */
const MIN_REPUTATIONS = PROVIDER_REPUTATIONS.slice(1).map((r) => r - 1);
const MAX_COSTS = [5, 20, 50, 100, 150];

/**
 * POOL_SIZE distinct resolve queries: every seeded capability (a few hundred to ten thousand offers), each
 * preference, and in three queries of five one to three of the limits (reputation, price, language).
 */
export function resolvePool(size = POOL_SIZE): ResolveBody[] {
  const random = seededRandom(POOL_SEED);
  const capabilities = [RESOLVE_CAPABILITY, ...BENCH_CAPABILITIES];
  return distinct(
    size,
    () => {
      const body: ResolveBody = { capability: pick(random, capabilities), prefer: pick(random, PREFERS) };
      if (random() < 0.6) {
        // At least one limit, each of the three with the same chance.
        const which = 1 + Math.floor(random() * 7);
        if (which & 1) body.min_reputation = pick(random, MIN_REPUTATIONS);
        if (which & 2) body.max_cost = pick(random, MAX_COSTS);
        if (which & 4) body.language = pick(random, LANGUAGES);
      }
      return body;
    },
    (body) => JSON.stringify(body),
  );
}

/** Whether a pool query has a reputation, price or language limit. */
export const isFiltered = (body: ResolveBody) => body.min_reputation !== undefined || body.max_cost !== undefined || body.language !== undefined;

/** One skills-marketplace query of the pool, as its query string's parameters. */
export interface SkillsQuery {
  runtime?: string;
  category?: string;
  sort: 'popular' | 'newest';
  offset?: number;
}

const RUNTIMES = ['python', 'nodejs', 'deno', 'wasm', 'docker'];
const OFFSETS = [0, 0, 0, 20, 40, 100, 200];

/** POOL_SIZE distinct marketplace pages: each sort, by runtime, category, both or neither, at a few offsets. */
export function skillsPool(size = POOL_SIZE): SkillsQuery[] {
  const random = seededRandom(POOL_SEED + 1);
  return distinct(
    size,
    () => {
      const query: SkillsQuery = { sort: random() < 0.5 ? 'popular' : 'newest' };
      if (random() < 0.7) query.runtime = pick(random, RUNTIMES);
      if (random() < 0.7) query.category = pick(random, SKILL_CATEGORIES);
      const offset = pick(random, OFFSETS);
      if (offset) query.offset = offset;
      return query;
    },
    (query) => skillsSearch(query),
  );
}

/** The query string of a marketplace page (keys in a fixed order). */
export function skillsSearch(query: SkillsQuery): string {
  const params = new URLSearchParams();
  if (query.runtime) params.set('runtime', query.runtime);
  if (query.category) params.set('category', query.category);
  params.set('sort', query.sort);
  if (query.offset) params.set('offset', String(query.offset));
  return params.toString();
}
