// Reputation moves only through recorded events: each change is clamped to 0-100, recorded with the delta
// actually applied, moves the tier, and yields a `reputation.changed` event for the agent's stream. Gains
// are capped at DAILY_GAIN_CAP in any 24 hours, whatever their source (provider calls included), exactly
// under concurrency.
import { transact } from '../../src/domain/events';
import { applyReputation, DAILY_GAIN_CAP, GAIN_WINDOW_MS } from '../../src/domain/reputation/reputation';
import { FakeClock } from '../support/clock';
import { api, registerAgent, registerService, startServer, type TestServer } from '../support/server';

let server: TestServer;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => server.close());

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
  expect(up).toMatchObject({ type: 'reputation.changed', data: { agent_id: me.agentId, delta: 5, reputation: 25, previous: 20, tier: 'newcomer', previous_tier: 'newcomer' } });
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
  const body = (name: string) => ({ name, endpoint: 'https://provider.example.com/run', capabilities: ['rep-rerank'], description: 'A service to re-rank', pricing_model: 'free' });
  await api(server)('POST', '/services/register', { key: me.key, body: body('mine') });
  await api(server)('POST', '/services/register', { key: other.key, body: body('theirs') });
  await change(me.agentId, -10, 'a bad day');
  const first = await api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } });
  expect(first.body.matches[0].name).toBe('theirs');
  await change(other.agentId, -15, 'a worse one');
  const second = await api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } });
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
    expect((await change(provider.agentId, 3, 'a completed task', 'task'))!.data.delta).toBe(3);
    // 150 successful calls are 15 points; 7 are left of the day's cap.
    const queue = (n: number) =>
      services.sql.query(`INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, created_at) SELECT $1::uuid, 'success', 20, $2 FROM generate_series(1, $3)`, [
        service.service_id,
        clock.now(),
        n,
      ]);
    await queue(150);
    while ((await services.providerStats.foldOnce()) > 0);
    expect(await reputationOf(provider.agentId)).toBe(20 + DAILY_GAIN_CAP);
    const folded = await services.db.reputationEvent.findFirstOrThrow({ where: { agentId: provider.agentId, sourceType: 'provider_stats' } });
    expect(folded).toMatchObject({ delta: 7, scoreAfter: 30, reason: `provider calls: 150 succeeded, 0 failed (capped: at most ${DAILY_GAIN_CAP} a day)` });
    // The points past the cap are not kept for later: a day on, only new calls earn.
    clock.advance(GAIN_WINDOW_MS + 1);
    await queue(20);
    while ((await services.providerStats.foldOnce()) > 0);
    expect(await reputationOf(provider.agentId)).toBe(20 + DAILY_GAIN_CAP + 2);
  });
});
