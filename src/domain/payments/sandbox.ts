// The x402 sandbox (spec §4.12): what payments run on, a faucet that credits a wallet up to a cap so a new
// agent can try paid calls, and a whole x402 round trip on the caller's own wallet: requirements, a
// payment signed with the key the marketplace holds for it, verification and settlement, as a paid call
// would make them. The test payment pays the marketplace and is credited straight back to the caller.
import { encodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Wallet } from '../../db/generated/prisma/client';
import { Conflict } from '../../platform/errors';
import { newUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { agentInReach } from '../agents/agents';
import { requireAgent } from '../agents/principal';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import { openWallets, transfer } from './ledger';
import { settlePayment } from './payments';
import { ACCOUNTS, formatUnits, parseUnits, type PaymentSetup } from './setup';
import { PaymentRequired, readPayment, requirementsFor, X402_VERSION } from './x402';

export interface SandboxStatus {
  setup: PaymentSetup;
  facilitator: string;
  x402Version: number;
}

export function sandboxStatus(ctx: Ctx): SandboxStatus {
  return { setup: ctx.services.payments.setup, facilitator: ctx.services.payments.facilitator.name, x402Version: X402_VERSION };
}

function sandboxOnly(ctx: Ctx, what: string): void {
  if (!ctx.services.payments.setup.sandbox)
    throw new Conflict(`${what} exists in sandbox mode only; payments here settle through ${ctx.services.payments.facilitator.name}`);
}

/** An amount of the asset, as a decimal string (`"2.5"`); undefined when absent. */
function readAmount(checks: Checks, field: string, raw: unknown, decimals: number, max: bigint): bigint | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,12}(\.\d+)?$/.test(raw)) {
    checks.fail(field, 'must be a decimal string of the asset, such as "2.5"');
    return undefined;
  }
  let units: bigint;
  try {
    units = parseUnits(raw, decimals);
  } catch {
    checks.fail(field, `has more than ${decimals} decimals`);
    return undefined;
  }
  if (units <= 0n) checks.fail(field, 'must be more than zero');
  else if (units > max) checks.fail(field, `must be at most ${formatUnits(max, decimals)}`);
  return units;
}

/**
 * The wallet of an agent within the caller's reach, opened (with a generated key and the starting balance)
 * when it has none.
 */
async function walletFor(ctx: Ctx, agentId: string): Promise<Wallet> {
  const found = await ctx.db.wallet.findUnique({ where: { agentId } });
  if (found) return found;
  await openWallets(ctx.services, [agentId]);
  return ctx.db.wallet.findUniqueOrThrow({ where: { agentId } });
}

export interface FaucetInput {
  agentId?: unknown;
  amount?: unknown;
}

export interface FaucetCredit {
  agentId: string;
  walletAddress: string;
  credited: bigint;
  balance: bigint;
  cap: bigint;
}

/**
 * Credits sandbox funds to a wallet (the caller's, or a sub-agent's), opening it (with the starting
 * balance) when needed: `amount`, or what tops it up to the cap, never past the cap (a wallet at the cap is
 * credited nothing).
 */
export async function faucet(ctx: Ctx, input: FaucetInput): Promise<FaucetCredit> {
  sandboxOnly(ctx, 'The faucet');
  const me = await requireAgent(ctx);
  const { setup } = ctx.services.payments;
  const checks = new Checks();
  const agentId = input.agentId === undefined || input.agentId === null ? me.id : checks.text('agentId', input.agentId, { max: 64 });
  const amount = readAmount(checks, 'amount', input.amount, setup.asset.decimals, setup.faucetCapUnits);
  checks.done();
  const agent = agentId === me.id ? me : await agentInReach(ctx, agentId!);
  const wallet = await walletFor(ctx, agent.id);
  const now = ctx.services.clock.now();
  return ctx.db.$transaction(async (tx) => {
    // The wallet's row lock makes the cap exact under concurrent credits.
    const [{ balance }] = await tx.$queryRaw<{ balance: bigint }[]>`SELECT balance FROM wallets WHERE id = ${wallet.id}::uuid FOR NO KEY UPDATE`;
    const room = setup.faucetCapUnits - BigInt(balance) > 0n ? setup.faucetCapUnits - BigInt(balance) : 0n;
    const credited = amount === undefined || amount > room ? room : amount;
    if (credited > 0n) {
      await transfer(
        tx,
        [
          { walletId: ACCOUNTS.faucet, amount: -credited, kind: 'faucet' },
          { walletId: wallet.id, amount: credited, kind: 'faucet' },
        ],
        { reference: 'sandbox faucet', at: now },
      );
      await recordAudit(tx, ctx, {
        agentId: agent.id,
        action: 'wallet.faucet',
        targetType: 'wallet',
        targetId: wallet.id,
        details: { credited: formatUnits(credited, setup.asset.decimals) },
      });
    }
    return { agentId: agent.id, walletAddress: wallet.address, credited, balance: BigInt(balance) + credited, cap: setup.faucetCapUnits };
  });
}

export interface TestPaymentInput {
  amount?: unknown;
}

export interface TestPaymentReceipt {
  simulated: true;
  walletAddress: string;
  requirements: PaymentRequirements;
  payload: PaymentPayload;
  /** The PAYMENT-SIGNATURE value a client would send. */
  paymentSignature: string;
  verification: VerifyResponse;
  settlement: SettleResponse;
  /** The PAYMENT-RESPONSE value a paid call answers with. */
  paymentResponse: string;
  paymentId: string;
  amount: bigint;
  balanceBefore: bigint;
  balanceAfter: bigint;
}

/** Default test payment: one cent. */
const TEST_PAYMENT_CENTS = 1n;

/**
 * A whole x402 round trip on the caller's wallet, made with the key the marketplace holds for it: the
 * requirements, the signed payment, its verification and its settlement, as a paid call makes them. The
 * payment pays the marketplace and is credited back to the caller, so the balance ends where it began.
 */
export async function testPayment(ctx: Ctx, input: TestPaymentInput): Promise<TestPaymentReceipt> {
  sandboxOnly(ctx, 'The test payment');
  const me = await requireAgent(ctx);
  const { setup, facilitator, keys } = ctx.services.payments;
  const checks = new Checks();
  const amount =
    readAmount(checks, 'amount', input.amount, setup.asset.decimals, setup.faucetCapUnits) ?? TEST_PAYMENT_CENTS * 10n ** BigInt(setup.asset.decimals - 2);
  checks.done();
  let wallet = await walletFor(ctx, me.id);
  if (wallet.keyOrigin === 'registered') {
    throw new Conflict(
      `The marketplace holds no key for wallet ${wallet.address} (its address was registered): sign a payment with your own key, and pay a call with it`,
    );
  }
  if (!wallet.encryptedKey) {
    // A wallet from before the marketplace held keys gets one now, and the address that key derives.
    const key = keys.generate();
    wallet = await ctx.db.wallet.update({ where: { id: wallet.id }, data: { address: key.address, encryptedKey: key.encryptedKey, keyOrigin: 'generated' } });
  }
  const account = keys.decrypt(wallet.address, wallet.encryptedKey!);
  const requirements = requirementsFor(setup, amount);
  const resource = {
    url: `${ctx.services.config.publicBaseUrl}/api/v1/x402/sandbox/test-payment`,
    description: 'A sandbox test payment',
    mimeType: 'application/json',
  };
  // @x402/evm (and viem) load with the first test payment, not at start.
  const { ExactEvmScheme: Scheme } = require('@x402/evm/exact/client') as { ExactEvmScheme: typeof ExactEvmScheme };
  const signed = await new Scheme(account).createPaymentPayload(X402_VERSION, requirements);
  const payload: PaymentPayload = { x402Version: X402_VERSION, resource, accepted: requirements, payload: signed.payload };
  const paymentSignature = encodePaymentSignatureHeader(payload);
  const read = readPayment(paymentSignature);
  const before = (await ctx.db.wallet.findUniqueOrThrow({ where: { id: wallet.id }, select: { balance: true } })).balance;
  const verification = await facilitator.verify(read.payload, requirements);
  const refuse = (reason: string | undefined, message: string) =>
    new PaymentRequired(
      `The test payment was refused: ${message}${reason === 'invalid_exact_evm_insufficient_balance' || /balance/i.test(message) ? ' (the faucet, POST /api/v1/x402/sandbox/faucet, credits sandbox funds)' : ''}`,
      {
        x402Version: X402_VERSION,
        resource,
        accepts: [requirements],
        ...(reason ? { error: reason } : {}),
      },
    );
  if (!verification.isValid) throw refuse(verification.invalidReason, verification.invalidMessage ?? verification.invalidReason ?? 'invalid');
  const settled = await settlePayment(ctx, me, read, requirements, {
    purpose: 'test_payment',
    requestHash: `test_payment:${newUuid()}`,
    executionId: null,
    holdAmount: 0n,
    holdMs: 60_000,
    refused: (answer) => refuse(answer.errorReason, answer.errorMessage ?? answer.errorReason ?? 'refused'),
  });
  const after = (await ctx.db.wallet.findUniqueOrThrow({ where: { id: wallet.id }, select: { balance: true } })).balance;
  return {
    simulated: true,
    walletAddress: wallet.address,
    requirements,
    payload,
    paymentSignature,
    verification,
    settlement: settled!.answer,
    paymentResponse: encodePaymentResponseHeader(settled!.answer),
    paymentId: settled!.paymentId,
    amount,
    balanceBefore: before,
    balanceAfter: after,
  };
}
