// The outbound HTTPS client against real servers on loopback: what a call returns, how each failure is
// named, and that no spelling of a private address (or a name resolving to one) is ever connected to.
import https from 'node:https';
import { checkOutboundUrl, isForbiddenAddress, OutboundClient, OutboundError, type Resolver } from '../../src/platform/outbound';
import { assertTestCaTrusted, startCanary, startHttpsServer, type HttpsTestServer } from '../support/https';

const post = { headers: { 'content-type': 'application/json' }, body: '{"ping":1}', timeoutMs: 5_000 };

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${String(err)}`);
  return err;
}

const servers: HttpsTestServer[] = [];
async function serve(...args: Parameters<typeof startHttpsServer>): Promise<HttpsTestServer> {
  const server = await startHttpsServer(...args);
  servers.push(server);
  return server;
}

let canary: HttpsTestServer;
beforeAll(async () => {
  assertTestCaTrusted();
  canary = await startCanary();
  servers.push(canary);
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('the test CA', () => {
  it('is trusted by this jest process through NODE_EXTRA_CA_CERTS alone (no ca option)', async () => {
    const server = await serve((_req, res) => res.end('trusted'));
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`${server.url}/`, (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (text += c))
            .on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(body).toBe('trusted');
  });
});

describe('OutboundClient with private addresses allowed (tests only)', () => {
  const client = new OutboundClient({ allowPrivate: true });
  afterAll(() => client.close());

  it('posts the body and headers and returns status, headers, body and latency', async () => {
    const seen: { method?: string; path?: string; headers?: Record<string, unknown>; body?: string } = {};
    const server = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, path: req.url, headers: req.headers, body });
        res.writeHead(201, { 'content-type': 'application/json', 'x-provider': 'p1' }).end('{"ok":true}');
      });
    });
    const res = await client.post(`${server.url}/hooks/run?x=1`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret' },
      body: '{"input":"héllo"}',
      timeoutMs: 5_000,
    });
    expect(res).toEqual({
      status: 201,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'x-provider': 'p1' }),
      body: '{"ok":true}',
      latencyMs: expect.any(Number),
    });
    expect(res.latencyMs).toBeGreaterThan(0);
    expect(seen).toEqual({
      method: 'POST',
      path: '/hooks/run?x=1',
      headers: expect.objectContaining({ authorization: 'Bearer s3cret', 'content-type': 'application/json' }),
      body: '{"input":"héllo"}',
    });
  });

  it('reaches an IPv6 loopback server', async () => {
    const server = await serve((_req, res) => res.end('six'), { host: '::1' });
    expect(server.url).toMatch(/^https:\/\/\[::1\]:\d+$/);
    expect((await client.post(server.url, post)).body).toBe('six');
  });

  it('keeps connections alive across calls to one origin', async () => {
    const server = await serve((req, res) => req.resume().on('end', () => res.end('ok')));
    // undici's pool opens a spare connection while its first one is still handshaking, so two warm-up calls.
    for (let i = 0; i < 2; i++) await client.post(`${server.url}/call`, post);
    const warm = server.connections();
    expect(warm).toBeLessThanOrEqual(2);
    for (let i = 0; i < 10; i++) expect((await client.post(`${server.url}/call`, post)).status).toBe(200);
    expect(server.connections()).toBe(warm);
  });

  it.each([
    ['http://127.0.0.1:PORT/', 'must be an absolute https:// URL'],
    ['/relative/path', 'must be an absolute https:// URL'],
    ['ftp://127.0.0.1:PORT/', 'must be an absolute https:// URL'],
    ['https://user:pass@127.0.0.1:PORT/', 'must not contain credentials'],
    ['https://user@127.0.0.1:PORT/', 'must not contain credentials'],
  ])('refuses %s as an invalid URL even with private addresses allowed', async (raw, message) => {
    const err = await failure(client.post(raw.replace('PORT', String(canary.port)), post));
    expect(err.reason).toBe('invalid_url');
    expect(err.message).toContain(message);
    expect(err.message).not.toContain('pass');
    expect(canary.connections()).toBe(0);
  });

  it('returns a redirect as the response and never contacts its Location', async () => {
    const server = await serve((req, res) => req.resume().on('end', () => res.writeHead(302, { location: `${canary.url}/stolen` }).end()));
    const res = await client.post(server.url, post);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${canary.url}/stolen`);
    expect(canary.connections()).toBe(0);
  });

  it('times out within the budget when the server never answers', async () => {
    const server = await serve(() => undefined);
    const started = Date.now();
    const err = await failure(client.post(server.url, { ...post, timeoutMs: 300 }));
    expect(err.reason).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('counts the body against the same budget', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial'); // …and the rest never comes
    });
    const err = await failure(client.post(server.url, { ...post, timeoutMs: 400 }));
    expect(err.reason).toBe('timeout');
  });

  it('names a refused connection', async () => {
    const gone = await startHttpsServer(() => undefined);
    await gone.close();
    const err = await failure(client.post(gone.url, post));
    expect(err.reason).toBe('connection');
    expect(err.code).toBe('ECONNREFUSED');
  });

  it('names an unresolvable host as a connection failure', async () => {
    const err = await failure(client.post('https://no-such-host.invalid/', post));
    expect(err.reason).toBe('connection');
  });

  it.each([
    ['with a Content-Length', true],
    ['chunked', false],
  ])('stops reading at maxResponseBytes (%s)', async (_label, declared) => {
    const big = 'x'.repeat(4096);
    const server = await serve((_req, res) => {
      if (declared) res.setHeader('content-length', big.length);
      res.write(big); // write() then end(): without a declared length, Node sends it chunked
      res.end();
    });
    const err = await failure(client.post(server.url, { ...post, maxResponseBytes: 1024 }));
    expect(err.reason).toBe('too_large');
    const whole = await client.post(server.url, { ...post, maxResponseBytes: 4096 });
    expect(whole.body).toBe(big);
    expect(whole.headers['transfer-encoding']).toBe(declared ? undefined : 'chunked');
  });

  it('limits responses to 1 MiB by default', async () => {
    const server = await serve((_req, res) => {
      res.write(Buffer.alloc(1024 * 1024, 'a'));
      res.end('b');
    });
    expect((await failure(client.post(server.url, post))).reason).toBe('too_large');
  });

  it('names an untrusted certificate as a TLS failure', async () => {
    const server = await serve((_req, res) => res.end('should not be read'), { certificate: 'untrusted' });
    const err = await failure(client.post(server.url, post));
    expect(err.reason).toBe('tls');
    expect(err.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it("leaves a malformed header as the caller's own error, without its value", async () => {
    const server = await serve((_req, res) => res.end());
    const err = await client.post(server.url, { ...post, headers: { 'x-token': 'v-secret\r\nx-injected: 1' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(OutboundError);
    expect(String(err)).not.toMatch(/secret/);
    expect(server.connections()).toBe(0);
  });

  it('keeps headers, query and body out of the error', async () => {
    const server = await serve(() => undefined);
    const err = await failure(
      client.post(`${server.url}/cb?token=q-secret`, { headers: { authorization: 'Bearer h-secret' }, body: 'b-secret', timeoutMs: 100 }),
    );
    expect(err.message).toBe(`POST ${server.url}: no complete response within 100 ms`);
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toMatch(/secret/);
  });
});

describe('OutboundClient guarding private addresses', () => {
  const client = new OutboundClient({ allowPrivate: false });
  afterAll(() => client.close());

  it('is checked against a canary that does count what reaches it', async () => {
    const other = await startCanary();
    servers.push(other);
    const open = new OutboundClient({ allowPrivate: true });
    try {
      expect((await open.post(`https://localhost:${other.port}/`, post)).status).toBe(500);
      expect((await open.post(`https://[::1]:${other.port}/`, post)).status).toBe(500);
    } finally {
      await open.close();
    }
    expect(other.connections()).toBe(2);
  });

  it.each([
    'https://127.0.0.1:PORT/',
    'https://localhost:PORT/',
    'https://[::1]:PORT/',
    'https://[::ffff:127.0.0.1]:PORT/',
    'https://[::ffff:7f00:1]:PORT/',
    'https://[64:ff9b::127.0.0.1]:PORT/',
    'https://[::127.0.0.1]:PORT/',
    'https://2130706433:PORT/',
    'https://0x7f000001:PORT/',
    'https://0177.0.0.1:PORT/',
    'https://127.1:PORT/',
    'https://0.0.0.0:PORT/',
    'https://0:PORT/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://192.168.1.1/',
    'https://172.16.0.1/',
    'https://100.64.0.1/',
    'https://[fc00::1]/',
    'https://[fe80::1]/',
    'https://[ff02::1]/',
  ])('blocks %s before connecting', async (raw) => {
    const err = await failure(client.post(raw.replace('PORT', String(canary.port)), { ...post, timeoutMs: 2_000 }));
    expect(err.reason).toBe('blocked_address');
    expect(canary.connections()).toBe(0);
  });

  const resolving =
    (answers: Record<string, string[]>): Resolver =>
    async (hostname) =>
      (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('blocks a name when any of its addresses is private', async () => {
    const guarded = new OutboundClient({ allowPrivate: false, resolve: resolving({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] }) });
    try {
      const err = await failure(guarded.post(`https://mixed.test:${canary.port}/`, post));
      expect(err.reason).toBe('blocked_address');
      expect(err.message).toBe('mixed.test resolves to a private, loopback or link-local address');
    } finally {
      await guarded.close();
    }
    expect(canary.connections()).toBe(0);
  });

  it('checks the name again at connect time, so a URL accepted at registration cannot rebind', async () => {
    const url = `https://rebind.test:${canary.port}/`;
    expect(checkOutboundUrl(url, false)).toBeUndefined();
    const lookups: string[] = [];
    const guarded = new OutboundClient({
      allowPrivate: false,
      resolve: async (hostname) => {
        lookups.push(hostname);
        return [{ address: '::ffff:127.0.0.1', family: 6 }];
      },
    });
    try {
      expect((await failure(guarded.post(url, post))).reason).toBe('blocked_address');
      expect(lookups).toEqual(['rebind.test']);
    } finally {
      await guarded.close();
    }
    expect(canary.connections()).toBe(0);
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['10.255.255.255', true],
    ['100.63.255.255', false],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['100.128.0.0', false],
    ['169.254.169.254', true],
    ['172.15.255.255', false],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['192.168.0.1', true],
    ['198.18.0.1', true],
    ['198.19.255.255', true],
    ['198.20.0.0', false],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['0:0:0:0:0:ffff:a00:1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::10.0.0.1', true],
    ['64:ff9b::808:808', false],
    ['fc00::1', true],
    ['fdff:ffff::1', true],
    ['fbff::1', false],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['febf::1', true],
    ['fec0::1', false],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['2001:db9::1', false],
    ['100::1', true],
    ['100:0:0:1::1', false],
    ['2606:4700:4700::1111', false],
    // 6to4: the IPv4 address right after 2002::/16
    ['2002:7f00:1::', true],
    ['2002:a00:1::1', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:808:808::1', false],
    // Teredo: the server in bits 32-63, the client inverted in the last 32 bits
    ['2001:0:7f00:1::', true],
    ['2001:0:808:808::80ff:fffe', true],
    ['2001:0:808:808:0:0:f7f7:f7f7', false],
    // NAT64 for local use, and ISATAP's interface identifier
    ['64:ff9b:1::a00:1', true],
    ['64:ff9b:1::808:808', false],
    ['2606:4700::5efe:7f00:1', true],
    ['2606:4700::200:5efe:a00:1', true],
    ['2606:4700::5efe:808:808', false],
    ['not-an-address', true],
  ])('%s → %p', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

describe('checkOutboundUrl', () => {
  it.each([
    ['https://provider.example/run', undefined],
    ['https://93.184.216.34:8443/run', undefined],
    ['https://localhost/run', undefined], // names are judged when a call connects
    ['http://provider.example/run', 'must be an absolute https:// URL'],
    ['provider.example/run', 'must be an absolute https:// URL'],
    ['https://a:b@provider.example/', 'must not contain credentials'],
    ['https://127.0.0.1/', 'must not point at a private, loopback or link-local address'],
    ['https://0x7f000001/', 'must not point at a private, loopback or link-local address'],
    ['https://[::ffff:169.254.169.254]/', 'must not point at a private, loopback or link-local address'],
  ])('%s → %p', (url, problem) => {
    expect(checkOutboundUrl(url, false)).toBe(problem);
  });

  it('lets private literals through only when told to, and never plain http', () => {
    expect(checkOutboundUrl('https://127.0.0.1:8443/', true)).toBeUndefined();
    expect(checkOutboundUrl('http://127.0.0.1:8443/', true)).toBe('must be an absolute https:// URL');
  });
});
