// A database outage degrades, it does not fail: while PostgreSQL is unreachable (its connections cut
// and refused, by a proxy in front of it), requests answer 503 service_unavailable with Retry-After and
// /health answers 503; once it is back, requests succeed again within seconds, with no restart.
import { clonePostgres } from '../support/databases';
import { eventually } from '../support/expect';
import { api, gql, onPostgres, registerAgent, startServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const describeOnPostgres = onPostgres() ? describe : describe.skip;

describeOnPostgres('PostgreSQL unreachable', () => {
  let server: TestServer;
  let proxy: TcpProxy;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const clone = await clonePostgres(process.env.DATABASE_URL!);
    drop = clone.drop;
    const url = new URL(clone.url);
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    url.host = `127.0.0.1:${proxy.port}`;
    server = await startServer({ databaseUrl: url.toString(), env: { RATE_LIMIT_DISABLED: '1' } });
  });
  afterAll(async () => {
    proxy.restore();
    await server.close();
    await proxy.close();
    await drop();
  });

  it('answers 503 with Retry-After while it is down, and serves again once it is back', async () => {
    const call = api(server);
    const me = await registerAgent(server);
    expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);

    proxy.cut();
    const answers = await Promise.all([
      call('GET', '/agents/me', { key: me.key }),
      call('POST', '/memory/stores', { key: me.key, body: { name: 'during-outage', storeType: 'kv' } }),
      call('GET', '/services'),
      call('POST', '/agents/register', { body: { name: `outage-${process.pid}`, description: 'd', ownerEmail: 'o@example.com' } }),
    ]);
    for (const res of answers) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'service_unavailable' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
    const health = await call('GET', '/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'down', components: { database: { status: 'down' } } });
    const graphql = await gql(server, '{ me { name } }', undefined, me.key);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');

    proxy.restore();
    const back = await eventually(
      () => call('GET', '/agents/me', { key: me.key }),
      (r) => r.status === 200,
      10_000,
    );
    expect(back.status).toBe(200);
    expect((await call('GET', '/health')).status).toBe(200);
    expect((await call('POST', '/memory/stores', { key: me.key, body: { name: 'after-outage', storeType: 'kv' } })).status).toBe(201);
    // Nothing it logged as an unexpected failure.
    expect(server.logs.filter((l) => l.includes('"level":50') && !l.includes('unavailable'))).toEqual([]);
  });
});
