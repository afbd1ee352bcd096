// The uncached scenarios' precondition: ours and the peer agree on every query of the pool before either is timed.
import type { Target } from '../lib/load';
import type { ResolveBody } from '../lib/query-pool';
import { TOTAL_SAMPLE } from '../../src/domain/discovery/ranking';

/**
 * How unlikely an estimate's sample may be before it counts as wrong. A pool holds some 600 limited queries, and
 * four standard errors (the bound until 2026-11-29) failed a run on PostgreSQL on a query that few offers pass: 28
 * of 200 sampled against 13.6 expected, a binomial tail of about 2·10⁻⁴, far heavier than the normal curve's 3·10⁻⁵
 * at four standard errors. The tail is computed exactly instead.
 */
const SAMPLE_TAIL = 1e-7;

/**
 * The probability that `n` draws, each passing with probability `p`, pass `k` times or further from n·p on k's
 * side: a sample's count is as unlikely as this tail.
 */
export function binomialTail(n: number, p: number, k: number): number {
  if (p <= 0) return k <= 0 ? 1 : 0;
  if (p >= 1) return k >= n ? 1 : 0;
  const logRatio = Math.log(p) - Math.log1p(-p);
  let logPmf = n * Math.log1p(-p);
  const pmf: number[] = [];
  for (let i = 0; i <= n; i++) {
    pmf.push(Math.exp(logPmf));
    logPmf += Math.log(n - i) - Math.log(i + 1) + logRatio;
  }
  const sum = (from: number, to: number) => pmf.slice(from, to + 1).reduce((a, b) => a + b, 0);
  return k >= n * p ? sum(k, n) : sum(0, k);
}

/**
 * Before an uncached scenario counts, ours and the peer must give the same answer to every query of the
 * pool: the same entries (as sets for resolve, whose scores are exact at request time and may reorder ties
 * of the stored ones) and the same total, unless ours says it estimated it from a sample
 * (`total_is_estimate`, src/domain/discovery/ranking.ts TOTAL_SAMPLE): then its sample's count must be one a
 * random sample of that size gives at least once in ten million (SAMPLE_TAIL), and the estimates' mean error is
 * printed.
 */
export async function assertSameAnswers(ours: Target, peer: Target): Promise<void> {
  const requests = ours.varied!.bodies ?? ours.varied!.paths!;
  const errors: number[] = [];
  const ask = async (target: Target, i: number, body = target.varied!.bodies?.[i]) => {
    const url = target.varied!.paths ? `${new URL(target.url).origin}${target.varied!.paths[i]}` : target.url;
    const res = await fetch(url, { method: target.method, headers: target.headers, body, signal: AbortSignal.timeout(10_000) });
    const answer = (await res.json()) as Record<string, any>;
    if (res.status !== 200) throw new Error(`${target.name} answered ${res.status} to ${requests[i]}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer;
  };
  for (const [i, request] of requests.entries()) {
    const [a, b] = [await ask(ours, i), await ask(peer, i)];
    const ids = (x: Record<string, any>) => ((x.matches ?? x.skills) as { service_id?: string; id?: string }[]).map((m) => m.service_id ?? m.id);
    const sameEntries = a.matches ? [...ids(a)].sort().join() === [...ids(b)].sort().join() : ids(a).join() === ids(b).join();
    let sameTotal = a.total === b.total;
    let bound = '';
    if (a.total_is_estimate) {
      // The capability's offers, from the same query without limits (its total is counted, never estimated).
      const { capability, prefer } = JSON.parse(request) as ResolveBody;
      const offers = (await ask(ours, i, JSON.stringify({ capability, prefer }))).total as number;
      const sampled = Math.round((a.total * TOTAL_SAMPLE) / offers);
      const tail = binomialTail(TOTAL_SAMPLE, b.total / offers, sampled);
      sameTotal = tail >= SAMPLE_TAIL;
      bound = ` (ours estimated, of ${offers} offers: about ${sampled} of ${TOTAL_SAMPLE} sampled, a tail of ${tail.toExponential(1)} against ${SAMPLE_TAIL})`;
      errors.push(Math.abs(a.total - b.total) / Math.max(1, b.total));
    }
    if (!sameEntries || !sameTotal) {
      throw new Error(`ours and ${peer.name} differ on ${request}: totals ${a.total} / ${b.total}${bound}, entries ${ids(a).join(',')} / ${ids(b).join(',')}`);
    }
  }
  const estimated = errors.length
    ? ` (${errors.length} of ours' totals estimated, off by ${((100 * errors.reduce((x, y) => x + y, 0)) / errors.length).toFixed(1)}% on average, ${(100 * Math.max(...errors)).toFixed(0)}% at most)`
    : '';
  console.log(`  ours and ${peer.name} gave the same answers to all ${requests.length} queries of the pool${estimated}`);
}
