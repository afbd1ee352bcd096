// The x402 sandbox (spec §4.12): its status without a key, wallets that open with a starting balance, a
// faucet that credits a wallet up to a cap, and a whole x402 round trip on the caller's own wallet, signed with the key the marketplace holds for it and
// checked here as a client checks a payment: the signature recovers the wallet's address (viem).
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import { authorizationTypes } from '@x402/evm';
import { api, gql, registerAgent, startServer, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';
import { evm, type Hex } from '../../src/platform/evm';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', SANDBOX_FAUCET_CAP: '3', SANDBOX_STARTING_BALANCE: '0.5' } });
  call = api(server);
});
afterAll(() => server.close());

describe('GET /x402/sandbox/status', () => {
  it('says what payments run on, without a key', async () => {
    const res = await call('GET', '/x402/sandbox/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sandbox: true,
      x402_version: 2,
      scheme: 'exact',
      network: 'eip155:84532',
      network_name: 'base-sepolia',
      chain_id: 84532,
      asset: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, eip712_name: 'USDC', eip712_version: '2' },
      pay_to: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      max_timeout_seconds: 120,
      fee_bps: 1000,
      facilitator: 'in-process',
      faucet_cap: '3.000000',
      faucet_cap_base_units: '3000000',
      starting_balance: '0.500000',
      starting_balance_base_units: '500000',
    });
  });
});

describe('POST /x402/sandbox/faucet', () => {
  it('opens the wallet with the starting balance, credits it, and never past the cap', async () => {
    const me = await registerAgent(server);
    const first = await call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1.25' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      credited: true,
      agent_id: me.agentId,
      wallet_address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      amount: '1.250000',
      amount_base_units: '1250000',
      balance: '1.750000',
      balance_base_units: '1750000',
      cap: '3.000000',
      cap_base_units: '3000000',
    });
    const topUp = await call('POST', '/x402/sandbox/faucet', { key: me.key, body: {} });
    expect(topUp.body).toMatchObject({ credited: true, amount: '1.250000', balance: '3.000000' });
    const full = await call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1' } });
    expect(full.body).toMatchObject({ credited: false, amount: '0.000000', balance: '3.000000' });
    expect((await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key })).body.balance).toBe('3.000000');
  });

  it('keeps the cap under concurrent credits', async () => {
    const me = await registerAgent(server);
    await Promise.all(Array.from({ length: 10 }, () => call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1' } })));
    expect((await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key })).body.balance).toBe('3.000000');
  });

  it("credits a sub-agent's wallet, nobody else's, and names every bad field", async () => {
    const parent = await registerAgent(server);
    const sub = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
      key: parent.key,
      body: { name: `sub-${Date.now()}`, description: 'A funded sub-agent', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    const credited = await call('POST', '/x402/sandbox/faucet', { key: parent.key, body: { agent_id: sub.body.agent_id, amount: '0.5' } });
    expect(credited.body).toMatchObject({ agent_id: sub.body.agent_id, balance: '1.000000' });
    const stranger = await registerAgent(server);
    expectProblem(await call('POST', '/x402/sandbox/faucet', { key: stranger.key, body: { agent_id: parent.agentId } }), 404, 'not_found');
    for (const amount of ['-1', '0', 'lots', '1.1234567', '4', 5]) {
      const bad = await call('POST', '/x402/sandbox/faucet', { key: parent.key, body: { amount } });
      expectProblem(bad, 400, 'validation_failed');
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['amount']);
    }
    expectProblem(await call('POST', '/x402/sandbox/faucet', { body: {} }), 401, 'unauthorized');
  });
});

describe('POST /x402/sandbox/test-payment', () => {
  it("makes a whole x402 round trip on the caller's wallet and leaves its balance as it was", async () => {
    const me = await registerAgent(server);
    await call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1' } });
    const wallet = (await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key })).body;
    const res = await call('POST', '/x402/sandbox/test-payment', { key: me.key, body: { amount: '0.25' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      simulated: true,
      wallet_address: wallet.wallet_address,
      amount: '0.250000',
      amount_base_units: '250000',
      requirements: { scheme: 'exact', network: 'eip155:84532', amount: '250000' },
      verification: { is_valid: true, payer: expect.any(String) },
      settlement: { success: true, network: 'eip155:84532', transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
      balance_before: '1.500000',
      balance_after: '1.500000',
    });
    // What a client would send and receive, decoded with the official encodings.
    const sent = decodePaymentSignatureHeader(res.body.payment_signature);
    expect(sent).toEqual(res.body.payment);
    expect(decodePaymentResponseHeader(res.body.payment_response)).toMatchObject({ success: true, transaction: res.body.settlement.transaction });
    // The signature is a real EIP-712 signature by the wallet's key.
    const { viem } = evm();
    const auth = sent.payload as { authorization: Record<string, string>; signature: Hex };
    const signer = await viem.recoverTypedDataAddress({
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: res.body.requirements.asset },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: auth.authorization.from as Hex,
        to: auth.authorization.to as Hex,
        value: BigInt(auth.authorization.value),
        validAfter: BigInt(auth.authorization.validAfter),
        validBefore: BigInt(auth.authorization.validBefore),
        nonce: auth.authorization.nonce as Hex,
      },
      signature: auth.signature,
    });
    expect(signer.toLowerCase()).toBe(wallet.wallet_address);
    // In the ledger: paid to the marketplace and credited back, each side a transfer summing to zero.
    const ledger = await call('GET', `/agents/${me.agentId}/wallet/entries`, { key: me.key });
    expect(
      ledger.body.entries
        .slice(0, 2)
        .map((e: { kind: string; amount: string }) => [e.kind, e.amount])
        .sort(),
    ).toEqual([
      ['x402_deposit', '0.250000'],
      ['x402_payment', '-0.250000'],
    ]);
    const payment = await server.app.services.db.x402Payment.findUniqueOrThrow({ where: { id: res.body.payment_id } });
    expect(payment).toMatchObject({ purpose: 'test_payment', status: 'settled', amount: 250_000n, agentId: me.agentId });
  });

  it("works on a new agent's first call, answers 402 naming the faucet for more than the wallet has, and 409 for an address the agent registered", async () => {
    const poor = await registerAgent(server);
    const first = await call('POST', '/x402/sandbox/test-payment', { key: poor.key, body: {} });
    expect(first.body).toMatchObject({ simulated: true, amount_base_units: '10000', balance_before: '0.500000', balance_after: '0.500000' });
    const res = await call('POST', '/x402/sandbox/test-payment', { key: poor.key, body: { amount: '1' } });
    expectProblem(res, 402, 'payment_required');
    expect(res.body.detail).toContain('POST /api/v1/x402/sandbox/faucet');
    expect(res.body.accepts[0]).toMatchObject({ amount: '1000000' });
    const own = await registerAgent(server);
    await call('POST', `/agents/${own.agentId}/wallet`, { key: own.key, body: { address: `0x${'ab'.repeat(20)}` } });
    const refused = await call('POST', '/x402/sandbox/test-payment', { key: own.key, body: {} });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body.detail).toMatch(/holds no key/);
  });

  it('gives a wallet from before keys were held a key on its first test payment', async () => {
    const me = await registerAgent(server);
    await call('POST', '/x402/sandbox/faucet', { key: me.key, body: { amount: '1' } });
    await server.app.services.db.wallet.update({ where: { agentId: me.agentId }, data: { keyOrigin: 'none', encryptedKey: null } });
    const res = await call('POST', '/x402/sandbox/test-payment', { key: me.key, body: {} });
    expect(res.status).toBe(200);
    const wallet = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    expect(wallet).toMatchObject({ keyOrigin: 'generated', address: res.body.wallet_address, balance: 1_500_000n });
  });

  it('is the same operation on GraphQL', async () => {
    const me = await registerAgent(server);
    const funded = await gql(server, 'mutation { sandboxFaucet(input: { amount: "0.3" }) { credited balance } }', {}, me.key);
    expect(funded.body.data!.sandboxFaucet).toEqual({ credited: true, balance: '0.800000' });
    const paid = await gql(server, 'mutation { sandboxTestPayment { simulated amountBaseUnits settlement { success } balanceAfter } }', {}, me.key);
    expect(paid.body.data!.sandboxTestPayment).toEqual({ simulated: true, amountBaseUnits: '10000', settlement: { success: true }, balanceAfter: '0.800000' });
    const status = await gql(server, '{ x402Sandbox { sandbox network facilitator feeBps } }');
    expect(status.body.data!.x402Sandbox).toEqual({ sandbox: true, network: 'eip155:84532', facilitator: 'in-process', feeBps: 1000 });
  });
});
