// Reputation moves only through recorded events: each change is clamped to 0-100, recorded with the delta
// actually applied, moves the tier, and yields a `reputation.changed` event for the agent's stream.
import { transact } from '../../src/domain/events';
import { applyReputation } from '../../src/domain/reputation/reputation';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function change(agentId: string, delta: number, reason: string) {
  const { services } = server.app;
  return transact({ db: services.db, services }, (tx, emit) => applyReputation(tx, emit, { agentId, delta, reason, sourceType: 'test' }));
}

it('records each change, moves the tier, and clamps at 100 and 0', async () => {
  const me = await registerAgent(server);
  const up = await change(me.agentId, 15, 'good work');
  expect(up).toMatchObject({ type: 'reputation.changed', data: { agent_id: me.agentId, delta: 15, reputation: 35, previous: 20, tier: 'contributor', previous_tier: 'newcomer' } });
  expect(up!.id).toMatch(/^evt_/);

  const capped = await change(me.agentId, 90, 'a lot of good work');
  expect(capped!.data).toMatchObject({ delta: 65, reputation: 100, tier: 'star' });
  expect(await change(me.agentId, 5, 'no room left')).toBeUndefined();

  const floor = await change(me.agentId, -150, 'a disaster');
  expect(floor!.data).toMatchObject({ delta: -100, reputation: 0, tier: 'newcomer' });

  const res = await api(server)('GET', '/my/reputation', { key: me.key });
  expect(res.body).toMatchObject({ reputation: 0, tier: 'newcomer', total: 5 });
  expect(res.body.events.map((e: { delta: number }) => e.delta)).toEqual([-100, 0, 65, 15, 20]);
  expect((await api(server)('GET', '/agents/me', { key: me.key })).body).toMatchObject({ reputation_score: 0, tier: 'newcomer' });
});

it('re-ranks the agent’s services when its reputation moves', async () => {
  const me = await registerAgent(server);
  const other = await registerAgent(server);
  const body = (name: string) => ({ name, endpoint: 'https://provider.example.com/run', capabilities: ['rep-rerank'], description: 'A service to re-rank', pricing_model: 'free' });
  await api(server)('POST', '/services/register', { key: me.key, body: body('mine') });
  await api(server)('POST', '/services/register', { key: other.key, body: body('theirs') });
  await change(other.agentId, 60, 'trusted elsewhere');
  const first = await api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } });
  expect(first.body.matches[0].name).toBe('theirs');
  await change(me.agentId, 80, 'even better');
  const second = await api(server)('POST', '/resolve', { key: me.key, body: { capability: 'rep-rerank', prefer: 'reputation', limit: 1 } });
  expect(second.body.matches[0].name).toBe('mine');
});
