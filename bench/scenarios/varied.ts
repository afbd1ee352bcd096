// Reads that differ per request: each a query of a seeded pool (lib/query-pool.ts) of rankings or
// marketplace pages, against our own profile read with the read cache as it runs, and against a
// hand-written Express route over the same tables with our read cache off (the uncached pair).
import type { Target } from '../lib/load';
import { resolvePool, skillsPool, skillsSearch, type ResolveBody } from '../lib/query-pool';
import { oursRest } from './reads';
import { json, type Scenario, type ScenarioContext } from './scenario';

/** The uncached read scenarios, run together against our server restarted with its read cache off. */
export const UNCACHED_SCENARIOS = ['resolve_uncached', 'skills_uncached'];

/** The same seed for every varied target: ours and the peer are sent the same draws. */
const VARIED_SEED = 3600;
export const RESOLVE_POOL = resolvePool();
const SKILLS_POOL = skillsPool();

/** A resolve target drawing each request's body from `pool` (answers differ: only their status counts). */
export function variedResolve(name: string, url: string, headers: Record<string, string>, pool: ResolveBody[]): Target {
  const bodies = pool.map((body) => JSON.stringify(body));
  return {
    name,
    url,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: bodies[0],
    stableBody: false,
    varied: { bodies, seed: VARIED_SEED },
    check: (status, body) => {
      const b = json(body);
      return status === 200 && typeof b.total === 'number' && Array.isArray(b.matches) ? undefined : 'not a ranking';
    },
  };
}

/** A marketplace target drawing each request's page from the skills pool. */
function variedSkills(name: string, base: string): Target {
  const paths = SKILLS_POOL.map((query) => `/api/v1/agent-skills/marketplace?${skillsSearch(query)}`);
  return {
    name,
    url: `${base}${paths[0]}`,
    method: 'GET',
    headers: {},
    stableBody: false,
    varied: { paths, seed: VARIED_SEED },
    check: (status, body) => {
      const b = json(body);
      return status === 200 && typeof b.total === 'number' && Array.isArray(b.skills) ? undefined : 'not a marketplace page';
    },
  };
}

export function variedScenarios(ctx: ScenarioContext): Scenario[] {
  const { me, ours, peers } = ctx;
  const auth = { authorization: `Bearer ${me.masterKey}` };
  return [
    {
      // Against our own GET /agents/me in the same run: each request one of a thousand distinct rankings
      // (101 capabilities of 100,000 services, each preference, three in five with limits), drawn at
      // random, with the read cache as it runs by default.
      name: 'resolve_varied',
      ours: variedResolve('ours', `${ours}/api/v1/resolve`, auth, RESOLVE_POOL),
      peer: { ...oursRest(ctx), name: 'ours /agents/me' },
      targets: { rps: 0.5, p99: 3 },
    },
    {
      // The same against a marketplace page each request: a thousand distinct pages of 100,000 published
      // skills (by runtime, category, both or neither, most installed or newest first, at a few offsets).
      name: 'skills_varied',
      ours: variedSkills('ours', ours),
      peer: { ...oursRest(ctx), name: 'ours /agents/me' },
      targets: { rps: 0.5, p99: 3 },
    },
    {
      // The resolve pool against our server with its read cache off, and a hand-written Express route
      // over the same table (bench/peers/discovery-pg.ts). Run apart, after a restart (UNCACHED_ENV).
      name: 'resolve_uncached',
      ours: variedResolve('ours', `${ours}/api/v1/resolve`, auth, RESOLVE_POOL),
      peer: variedResolve('discovery-pg', `${peers['discovery-pg']}/api/v1/resolve`, auth, RESOLVE_POOL),
      targets: { rps: 1.0, p99: 1.5 },
      sameAnswers: true,
    },
    {
      name: 'skills_uncached',
      ours: variedSkills('ours', ours),
      peer: variedSkills('discovery-pg', peers['discovery-pg']),
      targets: { rps: 1.0, p99: 1.5 },
      sameAnswers: true,
    },
  ];
}
