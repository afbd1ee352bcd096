// The server's footprint (lib/footprint.ts): start to healthy, idle memory, memory a minute after a load.
import { FOOTPRINT_TARGETS, measureFootprint, variedLoad } from '../lib/footprint';
import { summarizeFootprint, type FootprintResult } from '../lib/report';
import { oursEnv, restartOurs } from '../ours';
import { MODE } from '../settings';

export const FOOTPRINT_SCENARIO = 'footprint';
/** The footprint's load: requests of varied kinds, most unlike any before (lib/footprint.ts). */
const FOOTPRINT_REQUESTS = 6_000;

/**
 * Our server stopped (an embedded data directory has one process), then started twice by measureFootprint
 * on the run's database as it now is: the second start is timed, its idle memory read, then its memory a
 * minute after a varied load; then ours again for what follows.
 */
export async function runFootprintScenario(url: string): Promise<FootprintResult> {
  let result: FootprintResult | undefined;
  await restartOurs(url, async () => {
    const f = await measureFootprint({ env: oursEnv(), load: (u) => variedLoad(u, FOOTPRINT_REQUESTS) });
    result = summarizeFootprint(FOOTPRINT_SCENARIO, { ...FOOTPRINT_TARGETS, idleMiB: FOOTPRINT_TARGETS.idleMiB[MODE] }, f);
  });
  return result!;
}
