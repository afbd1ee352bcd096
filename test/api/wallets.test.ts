// Wallets (spec §4.1 POST/GET /agents/:agentId/wallet; CONTRACT §8 sandbox): one per agent, created by
// the agent or one of its ancestors (in sandbox mode credited the starting balance as it opens), read with
// the balance its ledger sums to.
import { api, gql, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', SANDBOX_STARTING_BALANCE: '2' } });
  call = api(server);
});
afterAll(() => server.close());

const ADDRESS = /^0x[0-9a-f]{40}$/;

async function subAgentOf(parent: { key: string; agentId: string }) {
  const res = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
    key: parent.key,
    body: { name: uniqueName('sub'), description: 'A sub-agent with a wallet', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
  });
  if (res.status !== 201) throw new Error(`sub-agent creation failed: ${res.status} ${res.text}`);
  return { agentId: res.body.agent_id as string, key: res.body.master_key as string };
}

describe('POST /agents/:agentId/wallet', () => {
  it('creates the wallet once, with an address and the sandbox starting balance, and records it in the audit log', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      wallet_address: expect.stringMatching(ADDRESS),
      agent_id: me.agentId,
      network: 'base-sepolia',
      asset: 'USDC',
      key_custody: 'marketplace',
      balance: '2.000000',
      balance_base_units: '2000000',
      held: '0.000000',
      held_base_units: '0',
      // Earned by paid calls still inside their dispute window (test/api/escrow.test.ts).
      pending: '0.000000',
      pending_base_units: '0',
      available: '2.000000',
      available_base_units: '2000000',
      created_at: expect.any(String),
    });
    // The key the marketplace generated is kept encrypted, bound to the address it derives.
    const stored = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    expect(stored.keyOrigin).toBe('generated');
    expect(stored.encryptedKey).toMatch(/^v1\.[0-9a-f]{12}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(server.app.services.payments.keys.decrypt(stored.address, stored.encryptedKey!).address.toLowerCase()).toBe(res.body.wallet_address);
    expect(() => server.app.services.payments.keys.decrypt(`0x${'1'.repeat(40)}`, stored.encryptedKey!)).toThrow();
    const again = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key, body: {} });
    expectProblem(again, 409, 'conflict');
    expect(again.body.detail).toContain(res.body.wallet_address);
    const audit = await call('GET', '/my/audit-log', { key: me.key });
    expect(audit.body.events).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'wallet.created', target_id: expect.any(String) })]));
    const created = await server.app.services.db.auditEvent.findFirstOrThrow({ where: { agentId: me.agentId, action: 'wallet.created' } });
    expect(created.details).toMatchObject({ key_custody: 'marketplace', starting_balance: '2.000000' });
  });

  it('gives every agent a different address, and lets one creation win a race', async () => {
    const [a, b] = await Promise.all([registerAgent(server), registerAgent(server)]);
    const racing = await Promise.all([1, 2, 3].map(() => call('POST', `/agents/${a.agentId}/wallet`, { key: a.key })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const other = await call('POST', `/agents/${b.agentId}/wallet`, { key: b.key });
    expect(other.body.wallet_address).not.toBe(racing.find((r) => r.status === 201)!.body.wallet_address);
  });

  it("lets a parent create its sub-agent's wallet, and nobody else's", async () => {
    const parent = await registerAgent(server);
    const sub = await subAgentOf(parent);
    expect((await call('POST', `/agents/${sub.agentId}/wallet`, { key: parent.key })).status).toBe(201);
    const stranger = await registerAgent(server);
    expectProblem(await call('POST', `/agents/${parent.agentId}/wallet`, { key: stranger.key }), 404, 'not_found');
    // A sub-agent does not reach its parent.
    expectProblem(await call('POST', `/agents/${parent.agentId}/wallet`, { key: sub.key }), 404, 'not_found');
    expectProblem(await call('POST', '/agents/not-a-uuid/wallet', { key: parent.key }), 404, 'not_found');
  });
});

describe("POST /agents/:agentId/wallet with the agent's own address", () => {
  it('registers the address (lower-cased), holds no key for it, and refuses what is not an address', async () => {
    const me = await registerAgent(server);
    const address = '0x52908400098527886E0F7030069857D2E4169EE7'; // EIP-55 checksummed
    const res = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key, body: { address } });
    expect(res.status).toBe(201);
    // An address the agent registered starts like any wallet opened in sandbox mode.
    expect(res.body).toMatchObject({ wallet_address: address.toLowerCase(), key_custody: 'agent', balance: '2.000000' });
    const stored = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    expect(stored).toMatchObject({ keyOrigin: 'registered', encryptedKey: null });
    const other = await registerAgent(server);
    const taken = await call('POST', `/agents/${other.agentId}/wallet`, { key: other.key, body: { address: address.toLowerCase() } });
    expectProblem(taken, 409, 'conflict');
    expect(taken.body.detail).toContain("another wallet's");
    for (const [bad, why] of [
      ['0x1234', /EVM address/],
      ['0x52908400098527886e0F7030069857D2E4169EE7', /checksum/],
      [`0x${'0'.repeat(40)}`, /zero address/],
      [42, /must be a string/],
    ] as const) {
      const refused = await call('POST', `/agents/${other.agentId}/wallet`, { key: other.key, body: { address: bad } });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors).toEqual([{ path: 'address', message: expect.stringMatching(why) }]);
    }
  });
});

describe('GET /agents/:agentId/wallet', () => {
  it('answers the balance its ledger sums to', async () => {
    const me = await registerAgent(server);
    const created = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key });
    const started = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ wallet_address: created.body.wallet_address, balance: '2.000000', balance_base_units: '2000000' });
    const credit = await call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1.749999' } });
    expect(credit.status).toBe(200);
    const funded = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(funded.body).toMatchObject({ balance: '3.749999', balance_base_units: '3749999', available: '3.749999' });
    const ledger = await call('GET', `/agents/${me.agentId}/wallet/entries`, { key: me.key });
    expect(ledger.status).toBe(200);
    expect(ledger.body).toEqual({
      total: 2,
      entries: [
        {
          entry_id: expect.any(String),
          amount: '1.749999',
          amount_base_units: '1749999',
          kind: 'faucet',
          reference: 'sandbox faucet',
          transfer_id: expect.any(String),
          execution_id: null,
          payment_id: null,
          created_at: expect.any(String),
        },
        {
          entry_id: expect.any(String),
          amount: '2.000000',
          amount_base_units: '2000000',
          kind: 'faucet',
          reference: 'sandbox starting balance',
          transfer_id: expect.any(String),
          execution_id: null,
          payment_id: null,
          created_at: expect.any(String),
        },
      ],
    });
    // The faucet's side of the same transfer balances it.
    const sides = await server.app.services.db.walletEntry.findMany({ where: { transferId: ledger.body.entries[0].transfer_id } });
    expect(sides.reduce((t, e) => t + e.amount, 0n)).toBe(0n);
    const opening = await server.app.services.db.walletEntry.findMany({ where: { transferId: ledger.body.entries[1].transfer_id } });
    expect(opening.reduce((t, e) => t + e.amount, 0n)).toBe(0n);
    expectProblem(await call('GET', `/agents/${me.agentId}/wallet/entries`, { key: (await registerAgent(server)).key }), 404, 'not_found');
  });

  it('answers 404 without a wallet (reading one opens none) and for another agent’s wallet', async () => {
    const [me, stranger] = await Promise.all([registerAgent(server), registerAgent(server)]);
    expectProblem(await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key }), 404, 'not_found');
    await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key });
    expectProblem(await call('GET', `/agents/${me.agentId}/wallet`, { key: stranger.key }), 404, 'not_found');
    expectProblem(await call('GET', `/agents/${me.agentId}/wallet`), 401, 'unauthorized');
  });
});

describe('GraphQL', () => {
  it('creates and reads the same wallet as REST', async () => {
    const me = await registerAgent(server);
    const created = await gql(server, 'mutation($id: ID!) { createWallet(agentId: $id) { walletAddress balance asset } }', { id: me.agentId }, me.key);
    expect(created.body.errors).toBeUndefined();
    const read = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(read.body.wallet_address).toBe(created.body.data!.createWallet.walletAddress);
    const queried = await gql(server, 'query($id: ID!) { wallet(agentId: $id) { walletAddress balanceBaseUnits } }', { id: me.agentId }, me.key);
    expect(queried.body.data!.wallet).toEqual({ walletAddress: read.body.wallet_address, balanceBaseUnits: '2000000' });
    const again = await gql(server, 'mutation($id: ID!) { createWallet(agentId: $id) { walletAddress } }', { id: me.agentId }, me.key);
    expect(again.body.errors![0].extensions!.code).toBe('CONFLICT');
  });
});
