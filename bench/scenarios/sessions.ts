// One streaming session of ours beside the bare SSE hub, as the targets the SSE scenarios connect and push to.
import type { Agent } from '../accounts';
import type { FanoutTarget } from '../lib/fanout';

/** A new session of ours and the bare SSE hub, as fan-out targets: their streams and pushes, with the agent's key. */
export async function sessionTargets(
  me: Agent,
  ours: string,
  peer: string,
): Promise<{ auth: Record<string, string>; session: string; targets: Record<'ours' | 'peer', FanoutTarget> }> {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const session = `${ours}/api/v1/streaming/sessions/${await openSession(ours, me)}`;
  return {
    auth,
    session,
    targets: {
      ours: { name: 'ours', eventsUrl: `${session}/events`, pushUrl: `${session}/push`, headers: auth },
      peer: { name: 'sse-bare', eventsUrl: `${peer}/events`, pushUrl: `${peer}/push`, headers: auth },
    },
  };
}

/** Opens ours' session for the fan-out; readers and pushes use the benchmark agent's master key. */
async function openSession(url: string, me: Agent): Promise<string> {
  const res = await fetch(`${url}/api/v1/streaming/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: JSON.stringify({ capabilityId: 'summarize' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { id?: string; status?: string };
  if (res.status !== 201 || !body.id || body.status !== 'active')
    throw new Error(`opening a streaming session answered ${res.status}: ${JSON.stringify(body)}`);
  return body.id;
}
