// The peers (bench/peers/*.ts) as child processes, each told the benchmark agent and key it must answer for.
import path from 'node:path';
import type { Agent } from './accounts';
import { spawnTs } from './lib/children';
import { ourServer } from './ours';
import { DATABASE_URL, STARTUP_TIMEOUT_MS } from './settings';

/** Starts a peer and resolves with its base URL once it has announced its port. */
export async function startPeer(name: string, me: Agent, subKey: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extra,
    BENCH_SUB_KEY: subKey,
    BENCH_SERVICE_KEY: ourServer.seeded!.verifyServiceKey,
    BENCH_AGENT_ID: me.id,
    BENCH_AGENT_KEY: me.agentKey,
    BENCH_AGENT_NAME: me.name,
    BENCH_AGENT_DESCRIPTION: me.description,
    BENCH_OWNER_EMAIL: me.ownerEmail,
    BENCH_MASTER_KEY: me.masterKey,
  };
  if (DATABASE_URL) env.DATABASE_URL = DATABASE_URL;
  else delete env.DATABASE_URL;
  if (ourServer.peerDataDir) env.BENCH_PEER_PGDATA = path.join(ourServer.peerDataDir, 'pgdata');
  const child = spawnTs(name, `bench/peers/${name}.ts`, env);
  const port = await child.waitForLine((line) => {
    if (!line.startsWith('{"ready"')) return undefined;
    return (JSON.parse(line) as { port: number }).port;
  }, STARTUP_TIMEOUT_MS);
  return `${name === 'provider' ? 'https' : 'http'}://127.0.0.1:${port}`;
}
