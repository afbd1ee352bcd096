// Resolve against the catalog's size: a million services seeded (only when these scenarios are selected,
// last, since every scenario after would see them), a ranking from the whole against one from a slice.
import { randomUUID } from 'node:crypto';
import type { Agent } from '../accounts';
import type { Target } from '../lib/load';
import { isFiltered } from '../lib/query-pool';
import { ourServer, restartOurs, UNCACHED_ENV } from '../ours';
import { CATALOG_CAPABILITY, CATALOG_SERVICES, SLICE_CAPABILITY, SLICE_SERVICES, seedCatalog } from '../seed';
import { DATABASE_URL } from '../settings';
import { json, type Scenario } from './scenario';
import { RESOLVE_POOL, variedResolve } from './varied';

/** Resolve's cost against the catalog's size; seeded (a million services) and run only when selected, last. */
export const CATALOG_SCENARIO = 'resolve_flat_1m';
/** The same with a reputation, price or language limit, run after it on the same catalog. */
export const CATALOG_FILTERED_SCENARIO = 'resolve_flat_1m_filtered';

/** The catalog scenario's provider of a million services, once seeded (the run's clean-up deletes them). */
export const catalogProviderIds: string[] = [];

/**
 * The catalog scenarios' precondition, only when they run: the million-service catalog, seeded with our
 * server stopped, which then starts with its read cache off (UNCACHED_ENV), so that every request reads the
 * catalog rather than a kept answer.
 */
export async function seedCatalogAndRestart(url: string): Promise<void> {
  await restartOurs(
    url,
    async () => {
      const started = Date.now();
      catalogProviderIds.push(...ourServer.seeded!.providerIds.map(() => randomUUID()));
      await seedCatalog({ dataDir: ourServer.dataDir, databaseUrl: DATABASE_URL }, catalogProviderIds);
      console.log(
        `\nseeded ${CATALOG_SERVICES.toLocaleString('en')} more services (${(CATALOG_SERVICES / 100).toLocaleString('en')} offering ${CATALOG_CAPABILITY}, ` +
          `${SLICE_SERVICES / 100} of the first ${SLICE_SERVICES.toLocaleString('en')} offering ${SLICE_CAPABILITY}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    },
    UNCACHED_ENV,
  );
}

/**
 * Resolve against the catalog's size, in the same run on the same server: a capability offered by 1% of a
 * million services (10,000 offers) against one offered by 1% of a 10,000-service slice of them (100
 * offers), both asked for the same first 10 with the same preference, their offers priced and scored by
 * the same formulas. Work proportional to `limit` (the first entries of an index, a total kept per
 * capability) costs the same for both; ranking or counting the matches would cost a hundred times more
 * for the first. What grows with the whole table (index depth, cache) is shared by both sides here.
 */
export function catalogScenario(me: Agent, ours: string): Scenario {
  const resolveOf = (name: string, capability: string, offers: number): Target => ({
    name,
    url: `${ours}/api/v1/resolve`,
    method: 'POST',
    headers: { authorization: `Bearer ${me.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ capability, prefer: 'balanced' }),
    stableBody: false,
    check: (status, body) => {
      const b = json(body);
      return status === 200 && b.total === offers && b.matches?.length === 10 ? undefined : `expected 10 of ${offers} matches`;
    },
  });
  return {
    name: CATALOG_SCENARIO,
    ours: resolveOf('ours, 1M', CATALOG_CAPABILITY, CATALOG_SERVICES / 100),
    peer: resolveOf('ours, 10k', SLICE_CAPABILITY, SLICE_SERVICES / 100),
    targets: { p50: 1.3 },
  };
}

/**
 * The catalog scenario with limits: the resolve pool's filtered queries (a reputation, price or language
 * limit, or several, each preference), asked of the million's capability on one side and of the slice's
 * on the other, in the same order. Each side's matches are priced, owned and described by the same
 * formulas, so a limit keeps the same share of either; what must not grow is the work per request.
 */
export function catalogFilteredScenario(me: Agent, ours: string): Scenario {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const limits = RESOLVE_POOL.filter(isFiltered).map(({ capability: _capability, ...limits }) => limits);
  const pool = (capability: string) => [...new Map(limits.map((l) => [JSON.stringify(l), { capability, ...l }])).values()];
  return {
    name: CATALOG_FILTERED_SCENARIO,
    ours: variedResolve('ours, 1M', `${ours}/api/v1/resolve`, auth, pool(CATALOG_CAPABILITY)),
    peer: variedResolve('ours, 10k', `${ours}/api/v1/resolve`, auth, pool(SLICE_CAPABILITY)),
    targets: { p50: 1.3 },
  };
}
