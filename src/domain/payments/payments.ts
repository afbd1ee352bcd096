// Paying for a call (spec §4.3, CONTRACT §8): from the caller's prepaid balance or, when that does not cover it, an x402
// payment for the call. Either way the price is held before any provider is called and charged when the execution is
// recorded (execution/record.ts), share to the provider and fee to the marketplace; a call whose every provider failed is
// charged nothing. An x402 payment is credited to the caller's wallet when it settles, so what is unspent stays there.
import type { PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { Agent } from '../../db/generated/prisma/client';
import { isUniqueViolation, type DbTx } from '../../db/database';
import { ServiceUnavailable } from '../../platform/errors';
import { newUuid } from '../../platform/ids';
import { waitForClaim, type InFlight } from '../../platform/in-flight';
import type { Ctx, Services } from '../context';
import { FacilitatorUnavailable, type Facilitator } from './facilitator';
import { fundsOf, holdIn, openWallets, transfer, withoutWallet, type Funds } from './ledger';
import type { WalletLeases } from './leases';
import type { MandateHold } from './mandates';
import { ACCOUNTS, formatUnits, type PaymentSetup } from './setup';
import type { WalletKeyring } from './wallet-keys';
import { acceptedMatches, PaymentRequired, readPayment, requirementsFor, X402_VERSION, type ReadPayment } from './x402';

declare module '../context' {
  interface Services {
    /** Paid calls: the asset and network, the facilitator, wallet keys. */
    payments: PaymentServices;
  }
}

/** The payment machinery of one instance (Services.payments). */
export interface PaymentServices {
  setup: PaymentSetup;
  facilitator: Facilitator;
  keys: WalletKeyring;
  inFlight: InFlight;
  /** This instance's leases on callers' wallets (prepaid calls). */
  leases: WalletLeases;
  /** The wallets of agents paid by calls on this instance (providers), by agent: asked about once each. */
  walletOwners: Map<string, string>;
}

/** What a paid call holds while it runs. */
export interface Hold {
  /** The wallet_holds row: this instance's lease of the caller's wallet (prepaid), or the payment's own (x402). */
  id: string;
  walletId: string;
  address: string;
  /** The call's share of it: the most the call can cost. */
  amount: bigint;
  /** A lease shared with the caller's other calls (the charge is taken from it), or a hold of this call alone (released when it is recorded). */
  shared: boolean;
}

/** What one call may cost and who it may pay. */
export interface CallPrice {
  /** The most the call can cost: the highest price among the providers it may try, in base units. */
  quote: bigint;
  /** The same in cents. */
  quoteCents: number;
  /** The agents behind the providers it may pay (their wallets are opened before they are paid). */
  providers: string[];
  /** What the call is, for the 402's resource and for binding a payment to it. */
  capability: string;
  /** The request's fingerprint: a payment made for one request cannot pay for another. */
  fingerprint: string;
  /** How long the call may take at most: the hold outlives it. */
  holdMs: number;
}

export interface X402Receipt {
  paymentId: string;
  payer: string;
  amount: bigint;
  transaction: string;
  network: string;
}

/** How a call is paid, once the money is held. */
export interface PaidCall {
  method: 'prepaid' | 'x402';
  /** The agent whose wallet pays: the caller, or the grantor of the mandate the call is made under. */
  payer: string;
  hold: Hold;
  /** The wallets of the providers it may pay, by agent. */
  providerWallets: Record<string, string>;
  x402?: X402Receipt;
  /** The execution id a payment fixed for its call (a replay of the payment adopts the recorded one). */
  executionId?: string;
  /** The mandate the call is made under: what it holds of its caps (payments/mandates.ts). */
  mandate?: MandateHold;
}

/** Who pays a prepaid call made under a mandate: its grantor. */
export interface MandatePayer {
  agentId: string;
  mandateId: string;
}

export type PaymentOutcome = { kind: 'paid'; paid: PaidCall } | { kind: 'replay'; executionId: string; x402: X402Receipt };

/** The 402 for `price`: what to pay, as x402 requirements, and why. */
export function paymentRequired(ctx: Ctx, price: CallPrice, message: string, error?: string): PaymentRequired {
  const { setup } = ctx.services.payments;
  return new PaymentRequired(message, {
    x402Version: X402_VERSION,
    resource: {
      url: `${ctx.services.config.publicBaseUrl}/api/v1/execute`,
      description: `Execute ${price.capability} (at most ${formatUnits(price.quote, setup.asset.decimals)} ${setup.asset.symbol})`,
      mimeType: 'application/json',
    },
    accepts: [requirementsFor(setup, price.quote)],
    ...(error ? { error } : {}),
  });
}

/**
 * Holds the call's price: from the caller's prepaid balance, or, with `paymentHeader`, from an x402
 * payment settled now and credited to the caller. Throws the 402 when neither pays. A payment already
 * used for this very request answers `replay` with the execution it paid for.
 */
export async function payForCall(ctx: Ctx, me: Agent, price: CallPrice, paymentHeader?: string | null, mandate?: MandatePayer | null): Promise<PaymentOutcome> {
  if (paymentHeader) return payWithX402(ctx, me, price, readPayment(paymentHeader));
  const { services } = ctx;
  const { setup } = services.payments;
  const payer = mandate?.agentId ?? me.id;
  const reserve = () => services.payments.leases.reserve(payer, price.quote, price.holdMs);
  let { ticket } = await reserve();
  let funds: Funds | undefined;
  if (!ticket) {
    // Only a call the balance did not cover asks more. In sandbox mode a caller without a wallet has one
    // opened now, with the starting balance; and a wallet that covers the call now (opened or credited
    // by a request of the caller's since the reservation was refused) is tried again.
    funds = await fundsOf(services.db, payer);
    if (!funds && setup.sandbox) {
      await openWallets(services, [payer]);
      funds = await fundsOf(services.db, payer);
    }
    if (funds && funds.available >= price.quote) {
      ({ ticket } = await reserve());
      if (!ticket) funds = await fundsOf(services.db, payer);
    }
  }
  if (!ticket) throw paymentRequired(ctx, price, mandate ? mandateUnpaidMessage(setup, price, funds, mandate) : unpaidMessage(setup, price, funds));
  let providerWallets: Record<string, string>;
  try {
    providerWallets = await walletsOf(services, price.providers);
  } catch (err) {
    services.payments.leases.finish(payer, ticket, 0n);
    throw err;
  }
  return {
    kind: 'paid',
    paid: {
      method: 'prepaid',
      payer,
      hold: { id: ticket.leaseId, walletId: ticket.walletId, address: ticket.address, amount: ticket.amount, shared: true },
      providerWallets,
    },
  };
}

/** Why a call the caller's wallet did not cover is 402, and what pays for it (in sandbox mode: the faucet). */
function unpaidMessage(setup: PaymentSetup, price: CallPrice, funds: Funds | undefined): string {
  const { asset } = setup;
  const cost = `${formatUnits(price.quote, asset.decimals)} ${asset.symbol}`;
  const x402 = 'pay for this call with x402: retry with a PAYMENT-SIGNATURE for one of `accepts`';
  if (!funds)
    return `This call of ${price.capability} costs up to ${cost} and the caller has no wallet. Pay for it with x402: retry with a PAYMENT-SIGNATURE for one of \`accepts\` (or open a wallet and fund it)`;
  const has = `This call of ${price.capability} costs up to ${cost}; the caller's wallet has ${formatUnits(funds.available, asset.decimals)} ${asset.symbol} available`;
  if (setup.sandbox)
    return `${has}. Sandbox funds are free: POST /api/v1/x402/sandbox/faucet credits the wallet up to ${formatUnits(setup.faucetCapUnits, asset.decimals)} ${asset.symbol}; or ${x402}`;
  return `${has}. Top the wallet up, or ${x402}`;
}

/** Why a call under a mandate is 402: its grantor's wallet, which pays, does not cover it. */
function mandateUnpaidMessage(setup: PaymentSetup, price: CallPrice, funds: Funds | undefined, mandate: MandatePayer): string {
  const { asset } = setup;
  const cost = `${formatUnits(price.quote, asset.decimals)} ${asset.symbol}`;
  const has = funds ? `has ${formatUnits(funds.available, asset.decimals)} ${asset.symbol} available` : 'has no wallet';
  return `This call of ${price.capability} costs up to ${cost}; it is paid under mandate ${mandate.mandateId} by agent ${mandate.agentId}, whose wallet ${has}. Its grantor tops it up${setup.sandbox ? ' (in sandbox mode, POST /api/v1/x402/sandbox/faucet)' : ''}; or pay for this call with x402: retry with a PAYMENT-SIGNATURE for one of \`accepts\``;
}

/**
 * The wallets of the providers a call may pay, by agent: the database is asked only about providers this
 * instance has not paid before (and wallets are opened for those without one).
 */
async function walletsOf(services: Services, providers: string[]): Promise<Record<string, string>> {
  const { walletOwners } = services.payments;
  const known: Record<string, string> = {};
  const unknown: string[] = [];
  for (const p of providers) {
    const wallet = walletOwners.get(p);
    if (wallet) known[p] = wallet;
    else unknown.push(p);
  }
  if (!unknown.length) return known;
  const without = await withoutWallet(services.db, unknown);
  if (without.length) await openWallets(services, without);
  const found = await services.db.wallet.findMany({ where: { agentId: { in: unknown } }, select: { id: true, agentId: true } });
  // A wallet is never replaced, only removed with its agent: what is known stays true or stops mattering.
  if (walletOwners.size > 100_000) walletOwners.clear();
  for (const w of found) {
    walletOwners.set(w.agentId!, w.id);
    known[w.agentId!] = w.id;
  }
  return known;
}

function holdExpiry(services: Services, price: Pick<CallPrice, 'holdMs'>): Date {
  return new Date(services.clock.now().getTime() + price.holdMs);
}

/** The payment row's key: one authorization (payer and nonce) on one asset and network. */
function paymentKey(setup: PaymentSetup, read: ReadPayment) {
  return { network_asset_payer_nonce: { network: setup.network, asset: setup.asset.address.toLowerCase(), payer: read.payer, nonce: read.nonce } };
}

async function payWithX402(ctx: Ctx, me: Agent, price: CallPrice, read: ReadPayment): Promise<PaymentOutcome> {
  const { services } = ctx;
  const { setup, facilitator, inFlight } = services.payments;
  const required = requirementsFor(setup, price.quote);
  const flightKey = `x402:${read.payer}:${read.nonce}`;
  const deadline = Date.now() + price.holdMs;
  for (;;) {
    // A payment seen before: the same request is answered from what it paid for; another is refused.
    const seen = await waitForClaim(
      inFlight,
      flightKey,
      async () => {
        const row = await services.db.x402Payment.findUnique({ where: paymentKey(setup, read) });
        if (!row) return { row: null };
        if (row.agentId !== me.id || row.requestHash !== price.fingerprint) return { row };
        const recorded = row.executionId ? await services.db.execution.findUnique({ where: { id: row.executionId }, select: { id: true } }) : null;
        if (recorded) return { row };
        // Its claimant is still at work (settling, or calling the providers): wait for it.
        return row.claimedUntil.getTime() > services.clock.now().getTime() ? undefined : { row };
      },
      deadline,
    );
    if (!seen) throw new ServiceUnavailable('A copy of this paid request is still being answered; retry shortly');
    const { row } = seen;
    if (row) {
      if (row.agentId !== me.id || row.requestHash !== price.fingerprint) {
        throw paymentRequired(
          ctx,
          price,
          'This payment has already paid for another request: a payment pays for the one request it was made for',
          'payment_already_used',
        );
      }
      const receipt: X402Receipt = { paymentId: row.id, payer: row.payer, amount: row.amount, transaction: row.transaction ?? '', network: row.network };
      const recorded = row.executionId ? await services.db.execution.findUnique({ where: { id: row.executionId }, select: { id: true } }) : null;
      if (recorded) return { kind: 'replay', executionId: row.executionId!, x402: receipt };
      // Its claimant stopped before recording the call: take the claim over.
      const taken = await services.db.x402Payment.updateMany({
        where: { id: row.id, claimedUntil: row.claimedUntil },
        data: { claimedUntil: holdExpiry(services, price) },
      });
      if (!taken.count) continue;
      return inFlight.run(flightKey, () => resumePayment(ctx, me, price, row.id, row.status, read, required, receipt));
    }
    if (!acceptedMatches(read.payload.accepted, required)) {
      const { asset } = setup;
      throw paymentRequired(
        ctx,
        price,
        `The payment was made for other requirements (${read.payload.accepted.amount} base units to ${read.payload.accepted.payTo} on ${read.payload.accepted.network}); this call asks for ${required.amount} base units of ${asset.symbol} (${formatUnits(price.quote, asset.decimals)}) to ${required.payTo} on ${required.network}`,
        'payment_requirements_mismatch',
      );
    }
    const verified = await askFacilitator(() => facilitator.verify(read.payload, required));
    // A copy of the request may have settled the payment meanwhile (its nonce is then used): answer from it.
    if (!verified.isValid && (await services.db.x402Payment.findUnique({ where: paymentKey(setup, read), select: { id: true } }))) continue;
    if (!verified.isValid) {
      throw paymentRequired(
        ctx,
        price,
        `The payment was refused: ${verified.invalidMessage ?? verified.invalidReason ?? 'invalid'}`,
        verified.invalidReason ?? 'invalid_payment',
      );
    }
    const outcome = await inFlight.run(flightKey, () => settleNew(ctx, me, price, read, required));
    if (outcome) return outcome;
    // Another copy claimed the payment first: answer from it.
  }
}

/** The facilitator's answer; 503 when a remote one could not be reached (nothing is known to be settled). */
export async function askFacilitator<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (err) {
    if (err instanceof FacilitatorUnavailable) throw new ServiceUnavailable(`The payment facilitator is unavailable: ${err.message}; retry shortly`);
    throw err;
  }
}

/** What settling a payment is for: the call it pays (its price held), a checkout, or a sandbox test payment. */
export interface Settlement {
  purpose: 'execute' | 'test_payment' | 'checkout';
  requestHash: string;
  executionId: string | null;
  /** Held on the caller's wallet once the payment is credited (0: nothing is held). */
  holdAmount: bigint;
  /** How long the claim (and the hold) lasts. */
  holdMs: number;
  refused: (answer: SettleResponse) => Error;
  /** Work that commits with the credit (in its transaction): what the payment was for, recorded once. */
  onCredited?: (tx: DbTx, paymentId: string, answer: SettleResponse) => Promise<void>;
}

/** The payment row of this authorization (payer and nonce on the asset and network), if one was claimed. */
export function findPayment(services: Services, read: ReadPayment) {
  return services.db.x402Payment.findUnique({ where: paymentKey(services.payments.setup, read) });
}

/**
 * Claims a payment not seen before, settles it and credits it to `me`, holding what the settlement asks; undefined when
 * another copy claimed it first. In sandbox mode all of it commits together; with a remote facilitator the claim is
 * written first, so a settlement whose outcome was lost is asked about again by the next copy.
 */
export async function settlePayment(
  ctx: Ctx,
  me: Agent,
  read: ReadPayment,
  required: PaymentRequirements,
  s: Settlement,
): Promise<{ paymentId: string; answer: SettleResponse } | undefined> {
  const { services } = ctx;
  const { setup, facilitator } = services.payments;
  const paymentId = newUuid();
  const now = services.clock.now();
  if (!(await services.db.wallet.findUnique({ where: { agentId: me.id }, select: { id: true } }))) await openWallets(services, [me.id]);
  const row = {
    id: paymentId,
    network: setup.network,
    asset: setup.asset.address.toLowerCase(),
    payer: read.payer,
    nonce: read.nonce,
    amount: read.value,
    payTo: required.payTo.toLowerCase(),
    agentId: me.id,
    purpose: s.purpose,
    requestHash: s.requestHash,
    executionId: s.executionId,
    status: 'pending',
    claimedUntil: new Date(now.getTime() + s.holdMs),
    createdAt: now,
  };
  try {
    if (setup.sandbox) {
      const answer = await services.db.$transaction(async (tx) => {
        await tx.x402Payment.create({ data: row });
        const settled = await facilitator.settle(read.payload, required, tx);
        // A refused settlement leaves nothing behind, its claim included.
        if (!settled.success) throw new SettlementRefused(settled);
        await creditAndHold(tx, services, me, paymentId, settled, read.value, s);
        return settled;
      });
      return { paymentId, answer };
    }
    await services.db.x402Payment.create({ data: row });
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    if (err instanceof SettlementRefused) throw s.refused(err.answer);
    throw err;
  }
  return { paymentId, answer: await settleRemote(ctx, me, paymentId, read, required, s) };
}

/** Settles a claimed payment with the remote facilitator (again, when its first claimant stopped) and credits it. */
export async function settleRemote(
  ctx: Ctx,
  me: Agent,
  paymentId: string,
  read: ReadPayment,
  required: PaymentRequirements,
  s: Settlement,
): Promise<SettleResponse> {
  const { services } = ctx;
  let answer: SettleResponse;
  try {
    answer = await askFacilitator(() => services.payments.facilitator.settle(read.payload, required, undefined as never));
  } catch (err) {
    // Unknown: the next copy of the request asks the facilitator again (it reconciles a repeated settle).
    await services.db.x402Payment.update({ where: { id: paymentId }, data: { claimedUntil: services.clock.now() } });
    throw err;
  }
  if (!answer.success) {
    // Nothing moved: the payment may be fixed and sent again, so its claim is withdrawn.
    await services.db.x402Payment.delete({ where: { id: paymentId } });
    throw s.refused(answer);
  }
  await services.db.$transaction((tx) => creditAndHold(tx, services, me, paymentId, answer, read.value, s));
  return answer;
}

/** A call's settlement: its price held, and a refusal answered with the call's 402. */
function forCall(ctx: Ctx, price: CallPrice, executionId: string | null): Settlement {
  return {
    purpose: 'execute',
    requestHash: price.fingerprint,
    executionId,
    holdAmount: price.quote,
    holdMs: price.holdMs,
    refused: (answer) => settleRefused(ctx, price, answer),
  };
}

async function settleNew(ctx: Ctx, me: Agent, price: CallPrice, read: ReadPayment, required: PaymentRequirements): Promise<PaymentOutcome | undefined> {
  const providerWallets = await walletsOf(ctx.services, price.providers);
  const executionId = newUuid();
  const settled = await settlePayment(ctx, me, read, required, forCall(ctx, price, executionId));
  return settled && paidWith(ctx.services, me, settled.paymentId, executionId, read, settled.answer, price, providerWallets);
}

/** Picks up a payment whose claimant stopped: settles it if that was not done, and holds the call's price again. */
async function resumePayment(
  ctx: Ctx,
  me: Agent,
  price: CallPrice,
  paymentId: string,
  status: string,
  read: ReadPayment,
  required: PaymentRequirements,
  receipt: X402Receipt,
): Promise<PaymentOutcome> {
  const { services } = ctx;
  const row = await services.db.x402Payment.findUniqueOrThrow({ where: { id: paymentId } });
  const providerWallets = await walletsOf(services, price.providers);
  if (status !== 'settled') {
    const answer = await settleRemote(ctx, me, paymentId, read, required, forCall(ctx, price, row.executionId));
    return paidWith(services, me, paymentId, row.executionId!, read, answer, price, providerWallets);
  }
  // The credit is in the caller's wallet; its hold either still stands (extended) or lapsed (held anew).
  const extended = await services.db.walletHold.updateMany({ where: { id: paymentId }, data: { expiresAt: holdExpiry(services, price) } });
  const wallet = (await fundsOf(services.db, me.id))!;
  if (!extended.count)
    await services.db.$transaction((tx) => holdIn(tx, wallet.walletId, price.quote, holdExpiry(services, price), services.clock.now(), paymentId));
  return {
    kind: 'paid',
    paid: {
      method: 'x402',
      payer: me.id,
      hold: { id: paymentId, walletId: wallet.walletId, address: wallet.address, amount: price.quote, shared: false },
      providerWallets,
      x402: receipt,
      executionId: row.executionId!,
    },
  };
}

/**
 * What arrived is the caller's: credited to its wallet (from the settlement account in sandbox, from the
 * chain's inflow with a remote facilitator), and what the settlement asks held.
 */
async function creditAndHold(tx: DbTx, services: Services, me: Agent, paymentId: string, answer: SettleResponse, amount: bigint, s: Settlement): Promise<void> {
  const { setup } = services.payments;
  const now = services.clock.now();
  const wallet = await tx.wallet.findUniqueOrThrow({ where: { agentId: me.id }, select: { id: true } });
  await tx.x402Payment.update({ where: { id: paymentId }, data: { status: 'settled', transaction: answer.transaction, settledAt: now } });
  await transfer(
    tx,
    [
      { walletId: setup.sandbox ? ACCOUNTS.settlement : ACCOUNTS.inflow, amount: -amount, kind: setup.sandbox ? 'x402_settlement' : 'x402_inflow' },
      { walletId: wallet.id, amount, kind: 'x402_deposit' },
    ],
    { reference: answer.transaction, paymentId, at: now },
  );
  // The hold is the payment's own (its id), so whoever resumes the payment finds it.
  if (s.holdAmount > 0n) await holdIn(tx, wallet.id, s.holdAmount, new Date(now.getTime() + s.holdMs), now, paymentId);
  await s.onCredited?.(tx, paymentId, answer);
}

async function paidWith(
  services: Services,
  me: Agent,
  paymentId: string,
  executionId: string,
  read: ReadPayment,
  answer: SettleResponse,
  price: CallPrice,
  providerWallets: Record<string, string>,
): Promise<PaymentOutcome> {
  const wallet = (await fundsOf(services.db, me.id))!;
  return {
    kind: 'paid',
    paid: {
      method: 'x402',
      payer: me.id,
      providerWallets,
      hold: { id: paymentId, walletId: wallet.walletId, address: wallet.address, amount: price.quote, shared: false },
      x402: { paymentId, payer: read.payer, amount: read.value, transaction: answer.transaction, network: answer.network },
      executionId,
    },
  };
}

class SettlementRefused extends Error {
  constructor(readonly answer: SettleResponse) {
    super(answer.errorReason ?? 'settlement refused');
  }
}

function settleRefused(ctx: Ctx, price: CallPrice, answer: SettleResponse): PaymentRequired {
  return paymentRequired(
    ctx,
    price,
    `The payment could not be settled: ${answer.errorMessage ?? answer.errorReason ?? 'refused'}`,
    answer.errorReason ?? 'settlement_failed',
  );
}
