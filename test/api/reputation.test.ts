// Reputation moves only through recorded events: each change is clamped to 0-100, recorded with the delta
// actually applied, moves the tier, and yields a `reputation.changed` event for the agent's stream. Gains
// are capped at DAILY_GAIN_CAP in any 24 hours, whatever their source (provider calls included), exactly
// under concurrency. Provider calls move their provider's reputation only when paid by an agent outside
// its family, against real HTTPS providers on loopback.
import { transact } from '../../src/domain/events';
import { recordTogether } from '../../src/domain/execution/execute';
import { FAILURES_PER_POINT, SUCCESSES_PER_POINT } from '../../src/domain/execution/provider-stats';
import { applyReputation, DAILY_GAIN_CAP, GAIN_WINDOW_MS } from '../../src/domain/reputation/reputation';
import { FakeClock } from '../support/clock';
import { eventually } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { fund, registerPayingAgent } from '../support/payments';
import { startProvider, type Provider } from '../support/provider';
import { batchRecord } from '../support/records';
import { api, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
const clock = new FakeClock();
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

/** Applies a change a millisecond after the last one (so that their order is their time's). */
async function change(agentId: string, delta: number, reason: string, sourceType = 'test') {
  const { services } = server.app;
  clock.advance(1);
  return transact({ db: services.db, services }, (tx, emit) => applyReputation(tx, emit, { agentId, delta, reason, sourceType, at: clock.now() }));
}

/** Sets an agent's score as a test's starting point (no event: not a change the marketplace made). */
async function setReputation(agentId: string, reputation: number) {
  await server.app.services.db.agent.update({ where: { id: agentId }, data: { reputation } });
}

/** The deltas of an agent's events, newest first, without its registration (timed by the database, not the test's clock). */
const changesOf = (events: { delta: number; reason: string }[]) => events.filter((e) => e.reason !== 'registered').map((e) => e.delta);

const reputationOf = async (agentId: string) => (await server.app.services.db.agent.findUniqueOrThrow({ where: { id: agentId } })).reputation;

it('records each change, moves the tier, and clamps at 100 and 0', async () => {
  const me = await registerAgent(server);
  const up = await change(me.agentId, 5, 'good work');
  expect(up).toMatchObject({
    type: 'reputation.changed',
    data: { agent_id: me.agentId, delta: 5, reputation: 25, previous: 20, tier: 'newcomer', previous_tier: 'newcomer' },
  });
  expect(up!.id).toMatch(/^evt_/);

  await setReputation(me.agentId, 98);
  const capped = await change(me.agentId, 3, 'a lot of good work');
  expect(capped!.data).toMatchObject({ delta: 2, reputation: 100, previous: 98, tier: 'star', previous_tier: 'star' });
  expect(await change(me.agentId, 1, 'no room left')).toBeUndefined();

  const floor = await change(me.agentId, -150, 'a disaster');
  expect(floor!.data).toMatchObject({ delta: -100, reputation: 0, tier: 'newcomer' });

  const res = await api(server)('GET', '/my/reputation', { key: me.key });
  expect(res.body).toMatchObject({ reputation: 0, tier: 'newcomer', total: 5 });
  expect(changesOf(res.body.events)).toEqual([-100, 0, 2, 5]);
  expect((await api(server)('GET', '/agents/me', { key: me.key })).body).toMatchObject({ reputation_score: 0, tier: 'newcomer' });
});

it('re-ranks the agent’s services when its reputation moves', async () => {
  const me = await registerAgent(server);
  const other = await registerAgent(server);
  const body = (name: string) => ({
    name,
    endpoint: 'https://provider.example.com/run',
    capabilities: ['rep-rerank'],
    description: 'A service to re-rank',
    pricing_model: 'free',
  });
  await api(server)('POST', '/services/register', { key: me.key, body: body('mine') });
  await api(server)('POST', '/services/register', { key: other.key, body: body('theirs') });
  await change(me.agentId, -10, 'a bad day');
  const first = await api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } });
  expect(first.body.matches[0].name).toBe('theirs');
  await change(other.agentId, -15, 'a worse one');
  // The change was not served by this instance (which would empty its read cache at once): the database's
  // change notification empties it, a moment after the commit.
  const second = await eventually(
    () => api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } }),
    (r) => r.body.matches[0].name === 'mine',
  );
  expect(second.body.matches[0].name).toBe('mine');
});

describe('the daily cap on gains', () => {
  it(`gains at most ${DAILY_GAIN_CAP} in any 24 hours, records what was applied, caps no loss, and counts again once the window has passed`, async () => {
    const me = await registerAgent(server);
    const started = clock.now().getTime();
    expect((await change(me.agentId, 4, 'one'))!.data.delta).toBe(4);
    expect((await change(me.agentId, 4, 'two'))!.data.delta).toBe(4);
    const partly = await change(me.agentId, 4, 'three');
    expect(partly!.data).toMatchObject({ delta: 2, reputation: 30, reason: `three (capped: at most ${DAILY_GAIN_CAP} a day)` });
    expect(await change(me.agentId, 1, 'four')).toBeUndefined();
    expect((await change(me.agentId, -3, 'a loss'))!.data.delta).toBe(-3);
    // A loss gives no room back: the cap counts gains.
    expect(await change(me.agentId, 3, 'five')).toBeUndefined();
    clock.advance(GAIN_WINDOW_MS / 2);
    expect(await change(me.agentId, 1, 'half a day later')).toBeUndefined();
    clock.at = new Date(started + GAIN_WINDOW_MS + 1);
    expect((await change(me.agentId, 4, 'a day later'))!.data).toMatchObject({ delta: 4, reputation: 31 });
    const events = (await api(server)('GET', '/my/reputation?limit=20', { key: me.key })).body.events;
    expect(changesOf(events)).toEqual([4, 0, 0, -3, 0, 2, 4, 4]);
    expect(await reputationOf(me.agentId)).toBe(31);
  });

  it('caps gains applied at the same moment exactly', async () => {
    const me = await registerAgent(server);
    const changes = await Promise.all(Array.from({ length: 8 }, (_, i) => change(me.agentId, 3, `at once ${i}`)));
    expect(changes.reduce((sum, c) => sum + ((c?.data.delta as number) ?? 0), 0)).toBe(DAILY_GAIN_CAP);
    expect(await reputationOf(me.agentId)).toBe(20 + DAILY_GAIN_CAP);
  });

  it('caps what provider calls earn, folded together with every other gain', async () => {
    const { services } = server.app;
    const provider = await registerAgent(server);
    const service = await registerService(server, provider.key);
    const customer = await registerAgent(server);
    expect((await change(provider.agentId, 3, 'a completed task', 'task'))!.data.delta).toBe(3);
    // 150 successful calls another agent paid 5 cents for are 15 points; 7 are left of the day's cap.
    const queue = (n: number) =>
      services.sql.query(
        `INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, created_at, caller_id, price_cents) SELECT $1::uuid, 'success', 20, $2, $4::uuid, 5 FROM generate_series(1, $3)`,
        [service.service_id, clock.now(), n, customer.agentId],
      );
    await queue(150);
    while ((await services.providerStats.foldOnce()) > 0);
    expect(await reputationOf(provider.agentId)).toBe(20 + DAILY_GAIN_CAP);
    const folded = await services.db.reputationEvent.findFirstOrThrow({ where: { agentId: provider.agentId, sourceType: 'provider_stats' } });
    expect(folded).toMatchObject({
      delta: 7,
      scoreAfter: 30,
      reason: `provider calls paid from outside its family: 150 succeeded, 0 failed (capped: at most ${DAILY_GAIN_CAP} a day)`,
    });
    // The points past the cap are not kept for later: a day on, only new calls earn.
    clock.advance(GAIN_WINDOW_MS + 1);
    await queue(20);
    while ((await services.providerStats.foldOnce()) > 0);
    expect(await reputationOf(provider.agentId)).toBe(20 + DAILY_GAIN_CAP + 2);
  });
});

describe('provider calls', () => {
  /** A provider agent with a service at `cost` cents a call, answered by an HTTPS provider on loopback. */
  async function offer(cost: number) {
    const p = await startProvider();
    providers.push(p);
    const agent = await registerAgent(server);
    const capability = uniqueSlug('rep-call');
    const service = await registerService(server, agent.key, {
      endpoint: p.url,
      capabilities: [capability],
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    });
    return { agent, provider: p, capability, serviceId: service.service_id, serviceKey: service.service_key };
  }

  /** `n` calls of the offer by the agent with `key`, one after another; answers what each was charged (cents). */
  async function calls(key: string, svc: Awaited<ReturnType<typeof offer>>, n: number, outcome: 'success' | 'error' = 'success') {
    const charged: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await api(server)('POST', '/execute', { key, body: { capability: svc.capability, input: { i }, mode: 'chosen', provider: svc.serviceKey } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(outcome);
      charged.push(res.body.payment?.charged_cents ?? 0);
    }
    return charged;
  }

  /** Folds every queued attempt. */
  async function fold() {
    const { providerStats } = server.app.services;
    await providerStats.settled();
    while ((await providerStats.foldOnce()) > 0);
  }

  /** A sub-agent of `parent` (the owner's own agent, or one of its tree), made and funded by the owner. */
  async function subAgentOf(owner: { key: string }, parent: { agentId: string }) {
    const res = await api(server)('POST', `/agents/${parent.agentId}/sub-agents`, {
      key: owner.key,
      body: { name: uniqueName('sub'), description: 'A helper', autonomyLevel: 'CREATE', authorityScope: [] },
    });
    if (res.status !== 201) throw new Error(res.text);
    await fund(server, owner.key, '10', res.body.id);
    return { key: res.body.master_key as string, agentId: res.body.id as string };
  }

  const statsOf = (serviceId: string) => server.app.services.db.service.findUniqueOrThrow({ where: { id: serviceId } });
  const foldedEvents = (agentId: string) => server.app.services.db.reputationEvent.findMany({ where: { agentId, sourceType: 'provider_stats' } });

  it("raises nothing for the provider's own paid calls, its sub-agents' (at any depth), or free calls, while the statistics count them all", async () => {
    const paid = await offer(2);
    await fund(server, paid.agent.key);
    // The provider calls its own service: it is charged (and paid its share back, less the fee).
    expect(await calls(paid.agent.key, paid, SUCCESSES_PER_POINT)).toEqual(Array(SUCCESSES_PER_POINT).fill(2));
    const sub = await subAgentOf(paid.agent, paid.agent);
    expect(await calls(sub.key, paid, SUCCESSES_PER_POINT)).toEqual(Array(SUCCESSES_PER_POINT).fill(2));
    const subSub = await subAgentOf(paid.agent, sub);
    expect(await calls(subSub.key, paid, SUCCESSES_PER_POINT)).toEqual(Array(SUCCESSES_PER_POINT).fill(2));
    // Another agent's calls of a free service cost nobody anything.
    const free = await offer(0);
    const stranger = await registerPayingAgent(server);
    expect(await calls(stranger.key, free, 2 * SUCCESSES_PER_POINT)).toEqual(Array(2 * SUCCESSES_PER_POINT).fill(0));
    await fold();
    expect(await reputationOf(paid.agent.agentId)).toBe(20);
    expect(await reputationOf(free.agent.agentId)).toBe(20);
    expect(await foldedEvents(paid.agent.agentId)).toEqual([]);
    expect(await foldedEvents(free.agent.agentId)).toEqual([]);
    expect(await statsOf(paid.serviceId)).toMatchObject({ successCount: 3 * SUCCESSES_PER_POINT, failureCount: 0 });
    expect(await statsOf(free.serviceId)).toMatchObject({ successCount: 2 * SUCCESSES_PER_POINT, failureCount: 0 });
  });

  it('raises it a point per ten calls paid by agents outside its family, within the daily cap', async () => {
    const svc = await offer(3);
    const [a, b] = [await registerPayingAgent(server), await registerPayingAgent(server)];
    // Nine paid calls are not yet a point; the tenth (another agent's) is.
    await calls(a.key, svc, SUCCESSES_PER_POINT - 1);
    await fold();
    expect(await reputationOf(svc.agent.agentId)).toBe(20);
    await calls(b.key, svc, 1);
    await fold();
    expect(await reputationOf(svc.agent.agentId)).toBe(21);
    const [event] = await foldedEvents(svc.agent.agentId);
    expect(event).toMatchObject({ delta: 1, scoreAfter: 21, reason: 'provider calls paid from outside its family: 1 succeeded, 0 failed' });
    // With 8 gained elsewhere today, twenty more paid calls (two points) earn the one point left.
    expect((await change(svc.agent.agentId, 8, 'a completed task', 'task'))!.data.delta).toBe(8);
    await calls(a.key, svc, 2 * SUCCESSES_PER_POINT);
    await fold();
    expect(await reputationOf(svc.agent.agentId)).toBe(20 + DAILY_GAIN_CAP);
    expect(await statsOf(svc.serviceId)).toMatchObject({ successCount: 3 * SUCCESSES_PER_POINT });
  });

  it('raises nothing for calls recorded unpaid (their hold lapsed and the wallet was spent), though the provider answered at its price', async () => {
    const svc = await offer(4);
    const stranger = await registerAgent(server);
    // What execute records when a paid call's charge is refused: the call, at no cost, in the free calls' statement.
    const unpaid = () =>
      batchRecord({
        agent_id: stranger.agentId,
        service_id: svc.serviceId,
        cost_cents: 0,
        attempts: [
          {
            ordinal: 1,
            serviceId: svc.serviceId,
            serviceKey: svc.serviceKey,
            outcome: 'success',
            reason: null,
            statusCode: 200,
            latencyMs: 5,
            score: null,
            priceCents: 4,
          },
        ],
      });
    const settled = await recordTogether(server.app.services.sql, 'free', Array.from({ length: SUCCESSES_PER_POINT }, unpaid));
    expect(settled.every((s) => s.ok)).toBe(true);
    await fold();
    expect(await statsOf(svc.serviceId)).toMatchObject({ successCount: SUCCESSES_PER_POINT });
    expect(await reputationOf(svc.agent.agentId)).toBe(20);
  });

  it("lowers it only for failed calls an outside agent would have paid for: free calls and the family's own cost it nothing", async () => {
    const paid = await offer(2);
    const free = await offer(0);
    paid.provider.setDefault({ status: 500 });
    free.provider.setDefault({ status: 500 });
    const stranger = await registerPayingAgent(server);
    await fund(server, paid.agent.key);
    const sub = await subAgentOf(paid.agent, paid.agent);
    // Free calls of a competitor, and a family's calls of its own service, fail without moving it.
    expect(await calls(stranger.key, free, FAILURES_PER_POINT, 'error')).toEqual(Array(FAILURES_PER_POINT).fill(0));
    await calls(paid.agent.key, paid, FAILURES_PER_POINT, 'error');
    await calls(sub.key, paid, FAILURES_PER_POINT, 'error');
    await fold();
    expect(await reputationOf(free.agent.agentId)).toBe(20);
    expect(await reputationOf(paid.agent.agentId)).toBe(20);
    expect(await statsOf(paid.serviceId)).toMatchObject({ successCount: 0, failureCount: 2 * FAILURES_PER_POINT, consecutiveFailures: 2 * FAILURES_PER_POINT });
    // An outside agent's paid calls that fail (not charged: it held their price) cost a point per five.
    expect(await calls(stranger.key, paid, FAILURES_PER_POINT, 'error')).toEqual(Array(FAILURES_PER_POINT).fill(0));
    await fold();
    expect(await reputationOf(paid.agent.agentId)).toBe(19);
    // The reason counts the calls of the fold that crossed the point: all five, or the last of them when the
    // folder woke between the calls (a busy machine's timing).
    expect((await foldedEvents(paid.agent.agentId)).map((e) => [e.delta, e.reason])).toEqual([
      [-1, expect.stringMatching(/^provider calls paid from outside its family: 0 succeeded, [1-5] failed$/)],
    ]);
  });
});
