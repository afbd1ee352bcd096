// The uncached scenarios' precondition: ours and the peer agree on every query of the pool before either is timed.
import type { Target } from '../lib/load';
import type { ResolveBody } from '../lib/query-pool';

/**
 * Before an uncached scenario counts, ours and the peer must give the same answer to every query of the
 * pool: the same entries (as sets for resolve, whose scores are exact at request time and may reorder ties
 * of the stored ones) and the same total, unless ours says it estimated it from a sample
 * (`total_is_estimate`, src/domain/discovery/ranking.ts TOTAL_SAMPLE): then within four standard errors
 * of a sample of that size, and the estimates' mean error is printed.
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
      const share = b.total / offers;
      const within = 4 * offers * Math.sqrt((share * (1 - share)) / 200) + 1;
      sameTotal = Math.abs(a.total - b.total) <= within;
      bound = ` (ours estimated, of ${offers} offers: at most ${within.toFixed(0)} off)`;
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
