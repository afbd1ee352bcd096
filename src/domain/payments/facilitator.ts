// The x402 facilitator: verifies a payment and settles it. In sandbox mode (the default) it runs in the
// process: the official exact-EVM facilitator (@x402/evm) checks the EIP-712 signature, recipient, amount,
// validity window and nonce for real, against a chain the ledger plays (SandboxChain): balances are the
// wallets', used nonces are sandbox_authorizations, and a transfer is a ledger transfer. With
// X402_FACILITATOR_URL a remote facilitator is asked instead, over the standard verify/settle API.
import { randomBytes } from 'node:crypto';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { DbTx } from '../../db/database';
import { onFirstUse } from '../../platform/lazy';
import type { OutboundClient } from '../../platform/outbound';
import { OutboundError } from '../../platform/outbound';
import { evm, type Hex } from '../../platform/evm';
import { ACCOUNTS, type PaymentSetup } from './setup';
import { InsufficientFunds, transfer } from './ledger';
import type { Eip3009Payload } from './x402';

type ExactEvm = { eip3009ABI: (typeof import('@x402/evm'))['eip3009ABI']; ExactEvmScheme: (typeof import('@x402/evm/exact/facilitator'))['ExactEvmScheme'] };
/** @x402/evm's facilitator, loaded by the first payment verified: it loads viem, which a start need not (docs/operations.md, Start). */
const x402Evm = onFirstUse((): ExactEvm => ({
  eip3009ABI: (require('@x402/evm') as typeof import('@x402/evm')).eip3009ABI,
  ExactEvmScheme: (require('@x402/evm/exact/facilitator') as typeof import('@x402/evm/exact/facilitator')).ExactEvmScheme,
}));

export interface Facilitator {
  /** `in-process` (sandbox) or the remote facilitator's URL. */
  readonly name: string;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /**
   * Settles a verified payment. The sandbox settles inside `tx`, so that the transfer commits with what
   * the marketplace records of it; a remote facilitator settles on its chain and `tx` is not used.
   */
  settle(payload: PaymentPayload, requirements: PaymentRequirements, tx: DbTx): Promise<SettleResponse>;
}

/** Multicall3, at its address on every EVM chain: the facilitator batches its diagnostic reads through it. */
const MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';
const TRANSFER_EVENT = 'event Transfer(address indexed from, address indexed to, uint256 value)';
/** What the sandbox answers to eth_getCode for the token: any non-empty code says "a contract is deployed". */
const TOKEN_CODE: Hex = '0x6080604052';

interface Reader {
  $queryRaw: DbTx['$queryRaw'];
}

/**
 * The chain as the exact-EVM facilitator sees it (FacilitatorEvmSigner), played by the ledger: the token's reads, its
 * simulation of transferWithAuthorization and the transfer, written through `db` (a transaction when settling). Errors
 * carry the token contract's revert texts, which the facilitator maps to x402 reasons.
 */
class SandboxChain {
  private readonly transfers = new Map<string, { from: Hex; to: Hex; value: bigint }>();

  constructor(
    private readonly db: Reader,
    private readonly setup: PaymentSetup,
    private readonly at: () => Date,
  ) {}

  getAddresses(): readonly Hex[] {
    return [this.setup.payTo as Hex];
  }

  async getCode({ address }: { address: Hex }): Promise<Hex | undefined> {
    // Only the token is a contract; every wallet is an externally owned account (ECDSA signatures).
    return address.toLowerCase() === this.setup.asset.address.toLowerCase() ? TOKEN_CODE : '0x';
  }

  async verifyTypedData(): Promise<boolean> {
    throw new Error('the exact facilitator verifies signatures itself');
  }

  async sendTransaction(): Promise<Hex> {
    throw new Error('the sandbox chain runs no raw transactions');
  }

  async readContract({
    address,
    functionName,
    args = [],
  }: {
    address: Hex;
    abi: readonly unknown[];
    functionName: string;
    args?: readonly unknown[];
  }): Promise<unknown> {
    if (address.toLowerCase() === MULTICALL3 && functionName === 'tryAggregate') {
      const calls = args[1] as { target: Hex; callData: Hex }[];
      const results = [];
      for (const call of calls) {
        try {
          const { viem } = evm();
          const { eip3009ABI } = x402Evm();
          const decoded = viem.decodeFunctionData({ abi: eip3009ABI, data: call.callData });
          const value = await this.read(call.target, decoded.functionName, (decoded.args ?? []) as readonly unknown[]);
          results.push({
            success: true,
            returnData: viem.encodeFunctionResult({ abi: eip3009ABI, functionName: decoded.functionName, result: value } as never),
          });
        } catch {
          results.push({ success: false, returnData: '0x' as Hex });
        }
      }
      return results;
    }
    return this.read(address, functionName, args);
  }

  private async read(address: Hex, functionName: string, args: readonly unknown[]): Promise<unknown> {
    if (address.toLowerCase() !== this.setup.asset.address.toLowerCase()) throw new Error(`execution reverted: no contract at ${address}`);
    switch (functionName) {
      case 'name':
        return this.setup.asset.eip712.name;
      case 'version':
        return this.setup.asset.eip712.version;
      case 'balanceOf':
        return this.available(String(args[0]));
      case 'authorizationState':
        return this.used(String(args[0]), String(args[1]));
      case 'transferWithAuthorization': {
        // A simulation: what the transfer would revert with, writing nothing.
        const [from, , value, validAfter, validBefore, nonce] = args as [Hex, Hex, bigint, bigint, bigint, Hex];
        const now = BigInt(Math.floor(this.at().getTime() / 1000));
        if (now <= validAfter) throw new Error('FiatTokenV2: authorization is not yet valid');
        if (now >= validBefore) throw new Error('FiatTokenV2: authorization is expired');
        if (await this.used(from, nonce)) throw new Error('FiatTokenV2: authorization is used or canceled');
        if ((await this.available(from)) < value) throw new Error('ERC20: transfer amount exceeds balance');
        return undefined;
      }
      default:
        throw new Error(`execution reverted: ${functionName} is not a function of the sandbox token`);
    }
  }

  private async available(address: string): Promise<bigint> {
    const rows = await this.db.$queryRaw<{ available: bigint }[]>`
      SELECT balance - held - pending AS available FROM wallets WHERE address = ${address.toLowerCase()} AND account = 'agent'`;
    return rows.length ? BigInt(rows[0].available) : 0n;
  }

  private async used(payer: string, nonce: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ n: number }[]>`
      SELECT 1 AS n FROM sandbox_authorizations WHERE asset = ${this.setup.asset.address.toLowerCase()} AND payer = ${payer.toLowerCase()} AND nonce = ${nonce.toLowerCase()}`;
    return rows.length > 0;
  }

  /** transferWithAuthorization, for real: the nonce is used once, and the payer's wallet pays the payee's account. */
  async writeContract({ functionName, args }: { address: Hex; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }): Promise<Hex> {
    const tx = this.db as DbTx;
    if (functionName !== 'transferWithAuthorization' || !('wallet' in tx)) throw new Error(`the sandbox chain does not run ${functionName}`);
    const [from, to, value, validAfter, validBefore, nonce] = args as [Hex, Hex, bigint, bigint, bigint, Hex];
    const now = BigInt(Math.floor(this.at().getTime() / 1000));
    if (now <= validAfter) throw new Error('FiatTokenV2: authorization is not yet valid');
    if (now >= validBefore) throw new Error('FiatTokenV2: authorization is expired');
    const hash = `0x${randomBytes(32).toString('hex')}` as Hex;
    const recorded = await tx.$executeRaw`
      INSERT INTO sandbox_authorizations (asset, payer, nonce, payee, value, transaction, created_at)
      VALUES (${this.setup.asset.address.toLowerCase()}, ${from.toLowerCase()}, ${nonce.toLowerCase()}, ${to.toLowerCase()}, ${value}, ${hash}, ${this.at()})
      ON CONFLICT DO NOTHING`;
    if (!recorded) throw new Error('FiatTokenV2: authorization is used or canceled');
    const payer = await tx.wallet.findFirst({ where: { address: from.toLowerCase(), account: 'agent' }, select: { id: true } });
    const payee = await tx.wallet.findFirst({ where: { address: to.toLowerCase() }, select: { id: true } });
    if (!payer) throw new Error('ERC20: transfer amount exceeds balance');
    try {
      await transfer(
        tx,
        [
          { walletId: payer.id, amount: -value, kind: 'x402_payment' },
          // A payee outside the ledger cannot be: verification checked the recipient is the marketplace.
          { walletId: payee?.id ?? ACCOUNTS.settlement, amount: value, kind: 'x402_settlement' },
        ],
        { reference: hash, at: this.at() },
      );
    } catch (err) {
      if (err instanceof InsufficientFunds) throw new Error('ERC20: transfer amount exceeds balance');
      throw err;
    }
    this.transfers.set(hash, { from, to, value });
    return hash;
  }

  async waitForTransactionReceipt({ hash }: { hash: Hex }): Promise<{ status: string; logs?: never[] }> {
    const t = this.transfers.get(hash);
    if (!t) return { status: 'reverted' };
    // The token's Transfer event, which the facilitator checks the receipt for.
    const { viem } = evm();
    const log = {
      address: this.setup.asset.address as Hex,
      topics: viem.encodeEventTopics({ abi: viem.parseAbi([TRANSFER_EVENT]), eventName: 'Transfer', args: { from: t.from, to: t.to } }),
      data: viem.encodeAbiParameters([{ type: 'uint256' }], [t.value]),
      blockHash: hash,
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: hash,
      transactionIndex: 0,
      removed: false,
    };
    return { status: 'success', logs: [log] as never[] };
  }
}

/** The in-process facilitator of sandbox mode. */
export function sandboxFacilitator(db: Reader, setup: PaymentSetup, now: () => Date): Facilitator {
  return {
    name: 'in-process',
    verify: (payload, requirements) => new (x402Evm().ExactEvmScheme)(new SandboxChain(db, setup, now) as never).verify(payload, requirements),
    settle: (payload, requirements, tx) => new (x402Evm().ExactEvmScheme)(new SandboxChain(tx, setup, now) as never).settle(payload, requirements),
  };
}

/** A remote facilitator, through the SSRF-guarded client: POST {url}/verify and {url}/settle. */
export function remoteFacilitator(url: string, outbound: OutboundClient, timeoutMs = 15_000): Facilitator {
  const call = async <T>(path: 'verify' | 'settle', payload: PaymentPayload, requirements: PaymentRequirements): Promise<T> => {
    const body = JSON.stringify({ x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements });
    let res;
    try {
      res = await outbound.post(`${url}/${path}`, { headers: { 'content-type': 'application/json' }, body, timeoutMs, maxResponseBytes: 64 * 1024 });
    } catch (err) {
      throw new FacilitatorUnavailable(`the facilitator could not be reached (${err instanceof OutboundError ? err.reason : 'error'})`);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(res.body);
    } catch {
      throw new FacilitatorUnavailable(`the facilitator answered ${path} with HTTP ${res.status} and no JSON`);
    }
    if (!answer || typeof answer !== 'object') throw new FacilitatorUnavailable(`the facilitator answered ${path} with HTTP ${res.status}`);
    return answer as T;
  };
  return {
    name: url,
    verify: (payload, requirements) => call<VerifyResponse>('verify', payload, requirements),
    settle: (payload, requirements) => call<SettleResponse>('settle', payload, requirements),
  };
}

/** The remote facilitator did not answer usefully: nothing is known to be settled. */
export class FacilitatorUnavailable extends Error {}

/** The EIP-3009 payload of an exact payment (readPayment checked its shape). */
export function eip3009Of(payload: PaymentPayload): Eip3009Payload {
  return payload.payload as unknown as Eip3009Payload;
}
