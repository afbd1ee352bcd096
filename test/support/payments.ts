// Paying in tests as a client would: throw-away EVM keys (viem), sandbox funds from the faucet, the
// official x402 client turning a 402 into a PAYMENT-SIGNATURE, and hand-made EIP-3009 authorizations
// (real EIP-712 signatures) for the payments a server must refuse.
import { randomBytes } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { evm, type EvmAccount, type Hex } from '../../src/platform/evm';
import type { Services } from '../../src/domain/context';
import { api, registerAgent, type HttpResult } from './server';

export const NETWORK = 'eip155:84532';

/** A new key pair nobody else has. */
export async function throwAwayAccount(): Promise<EvmAccount> {
  const { accounts } = evm();
  return accounts.privateKeyToAccount(accounts.generatePrivateKey());
}

/** Credits sandbox USDC (a decimal string) to an agent's wallet, opening it when needed. */
export async function fund(server: { url: string }, key: string, amount = '10', agentId?: string): Promise<HttpResult> {
  const res = await api(server)('POST', '/x402/sandbox/faucet', { key, body: { amount, ...(agentId ? { agent_id: agentId } : {}) } });
  if (res.status !== 200) throw new Error(`faucet failed: ${res.status} ${res.text}`);
  return res;
}

/** The PaymentRequired of a 402, as the official client reads it (the PAYMENT-REQUIRED header first). */
export function paymentRequiredOf(res: HttpResult): PaymentRequired {
  return httpClientFor(undefined).getPaymentRequiredResponse((name) => res.headers.get(name), res.body);
}

function httpClientFor(account: EvmAccount | undefined): x402HTTPClient {
  const client = new x402Client();
  if (account) client.register(NETWORK, new ExactEvmScheme(account));
  return new x402HTTPClient(client);
}

/** Pays a 402 with the official client: the headers to retry with. */
export async function payFor(res: HttpResult, account: EvmAccount): Promise<Record<string, string>> {
  const http = httpClientFor(account);
  const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), res.body);
  const payload = await http.createPaymentPayload(required);
  return http.encodePaymentSignatureHeader(payload);
}

/** PAYMENT-RESPONSE, decoded by the official client. */
export function settlementOf(res: HttpResult) {
  return httpClientFor(undefined).getPaymentSettleResponse((name) => res.headers.get(name));
}

export interface Authorization {
  from: Hex;
  to: Hex;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

/**
 * An EIP-3009 TransferWithAuthorization signed by `account` under the requirements' token domain, with
 * any part changed from what the requirements ask: the PAYMENT-SIGNATURE value that carries it, and its
 * parts (`accepted` is what the payload claims to pay for: the requirements unless given).
 */
export async function signAuthorization(
  account: EvmAccount,
  requirements: PaymentRequirements,
  change: Partial<Authorization> & { accepted?: PaymentRequirements; chainId?: number } = {},
): Promise<{ header: string; payload: PaymentPayload; authorization: Authorization; signature: Hex }> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization: Authorization = {
    from: account.address,
    to: requirements.payTo as Hex,
    value: BigInt(requirements.amount),
    validAfter: now - 600n,
    validBefore: now + BigInt(requirements.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
    ...change,
  };
  const signature = await account.signTypedData({
    domain: {
      name: requirements.extra.name as string,
      version: requirements.extra.version as string,
      chainId: change.chainId ?? Number(requirements.network.split(':')[1]),
      verifyingContract: requirements.asset as Hex,
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: change.accepted ?? requirements,
    payload: {
      signature,
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
        nonce: authorization.nonce,
      },
    },
  };
  return { header: encodePaymentSignatureHeader(payload), payload, authorization, signature };
}

/** A registered agent whose wallet the faucet funded (`amount` USDC): it pays for paid calls from its balance. */
export async function registerPayingAgent(server: { url: string }, amount = '10') {
  const agent = await registerAgent(server);
  await fund(server, agent.key, amount);
  return agent;
}

/**
 * The ledger audit (docs/payments.md, The ledger): every transfer sums to zero; every agent wallet's balance is its
 * entries' sum and covers what it holds and what is pending, its pending is its open escrows', and no call under a
 * spend mandate still holds any of its caps.
 */
export async function expectLedgerAudited(server: { app: { services: Services } }): Promise<void> {
  const db = server.app.services.db;
  const byTransfer = await db.walletEntry.groupBy({ by: ['transferId'], _sum: { amount: true } });
  expect(byTransfer.filter((t) => t._sum.amount !== 0n)).toEqual([]);
  const sums = new Map((await db.walletEntry.groupBy({ by: ['walletId'], _sum: { amount: true } })).map((g) => [g.walletId, g._sum.amount ?? 0n]));
  const open = new Map(
    (await db.escrow.groupBy({ by: ['walletId'], where: { status: { in: ['pending', 'frozen'] } }, _sum: { amount: true } })).map((g) => [
      g.walletId,
      g._sum.amount ?? 0n,
    ]),
  );
  for (const w of await db.wallet.findMany({ where: { account: 'agent' } })) {
    expect({ wallet: w.id, balance: w.balance, pending: w.pending }).toEqual({ wallet: w.id, balance: sums.get(w.id) ?? 0n, pending: open.get(w.id) ?? 0n });
    expect(w.balance >= w.held + w.pending && w.held >= 0n && w.pending >= 0n).toBe(true);
  }
  expect(await db.mandateHold.count()).toBe(0);
}
