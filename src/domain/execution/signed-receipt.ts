// Signed execution receipts: what a call asked, what it got and what it paid, as a compact JWS (EdDSA, a `kid`
// of /.well-known/jwks.json, `typ: receipt+jwt`) that anyone verifies offline with a JOSE library. The claims are
// made from the execution as recorded, so the receipt an execute answers and the one read later are the same
// token while the same key signs (Ed25519 signatures are deterministic).
import { NotFound } from '../../platform/errors';
import { canonicalSha256 } from '../../platform/canonical-json';
import { isUuid } from '../../platform/ids';
import { signCompact, verifyCompact } from '../../platform/jws';
import { requireAgent } from '../agents/principal';
import type { Ctx, Services } from '../context';
import { categoryOf, type ExecutionReceipt } from './receipts';
import { recordedReceipt } from './replay';

export const RECEIPT_TYP = 'receipt+jwt';

/** What a receipt binds (the `receipt` claim). Digests are SHA-256 of the RFC 8785 canonical JSON, in hex. */
export interface ReceiptClaim {
  execution_id: string;
  capability: string;
  mode: string;
  status: string;
  /** The agent that made the call. */
  caller: string;
  /** The service key of the provider that answered (or was tried last); `marketplace` for its own. */
  provider: string | null;
  input_sha256: string;
  /** Null when the call answered no result. */
  result_sha256: string | null;
  error: string | null;
  price_cents: number;
  latency_ms: number;
  /** The ledger's record of the call's charge (`transaction.transaction_id` of the answer). */
  transaction_id: string;
  /** How it was paid; null for a free call. */
  payment: {
    method: string;
    charged_base_units: string;
    fee_base_units: string;
    provider_share_base_units: string;
    /** The x402 settlement, when it was paid with one. */
    x402: { payment_id: string; transaction: string; network: string } | null;
    /** The spend mandate it was paid under, and its grantor, whose wallet paid (only when there was one). */
    mandate_id?: string;
    paid_by?: string;
    /** A metered call: the units the provider said it used, those charged, at what price (only when metered). */
    metered?: { unit: string; units: number; charged_units: number; cents_per_unit: number; max_cents: number };
  } | null;
  attempts: {
    ordinal: number;
    service_key: string;
    outcome: string;
    reason: string | null;
    category: string | null;
    status_code: number | null;
    latency_ms: number;
    price_cents: number;
  }[];
  created_at: string;
}

export interface ReceiptClaims {
  iss: string;
  sub: string;
  jti: string;
  iat: number;
  receipt: ReceiptClaim;
}

/** The claims of an execution's receipt. */
export function receiptClaims(ctx: Ctx, r: ExecutionReceipt): ReceiptClaims {
  const p = r.payment;
  return {
    iss: ctx.services.config.publicBaseUrl,
    sub: r.callerId,
    jti: r.executionId,
    iat: Math.floor(r.createdAt.getTime() / 1000),
    receipt: {
      execution_id: r.executionId,
      capability: r.capability,
      mode: r.mode,
      status: r.status,
      caller: r.callerId,
      provider: r.provider?.serviceKey ?? null,
      input_sha256: canonicalSha256(r.input),
      result_sha256: r.result === null || r.result === undefined ? null : canonicalSha256(r.result),
      error: r.error,
      price_cents: r.transaction.costCents,
      latency_ms: r.transaction.latencyMs,
      transaction_id: r.transaction.transactionId,
      payment: p
        ? {
            method: p.method,
            charged_base_units: p.charged.toString(),
            fee_base_units: p.fee.toString(),
            provider_share_base_units: p.providerShare.toString(),
            x402: p.x402 ? { payment_id: p.x402.paymentId, transaction: p.x402.transaction, network: p.x402.network } : null,
            ...(p.mandate ? { mandate_id: p.mandate.mandateId, paid_by: p.mandate.grantorId } : {}),
            ...(p.metered
              ? {
                  metered: {
                    unit: p.metered.unit,
                    units: p.metered.units,
                    charged_units: p.metered.chargedUnits,
                    cents_per_unit: p.metered.centsPerUnit,
                    max_cents: p.metered.maxCents,
                  },
                }
              : {}),
          }
        : null,
      attempts: r.attempts.map((a) => ({
        ordinal: a.ordinal,
        service_key: a.serviceKey,
        outcome: a.outcome,
        reason: a.reason,
        category: categoryOf(a),
        status_code: a.statusCode,
        latency_ms: a.latencyMs,
        price_cents: a.priceCents,
      })),
      created_at: r.createdAt.toISOString(),
    },
  };
}

const SIGNED = Symbol('signed receipt');

/** The receipt as a compact JWS, signed once per answer (the field and the header read the same). */
export function signedReceipt(ctx: Ctx, r: ExecutionReceipt): string {
  const held = r as ExecutionReceipt & { [SIGNED]?: string };
  held[SIGNED] ??= signCompact(receiptClaims(ctx, r) as unknown as Record<string, unknown>, ctx.services.signingKeys.current, RECEIPT_TYP);
  return held[SIGNED];
}

export interface SignedExecutionReceipt {
  executionId: string;
  signedReceipt: string;
  keyId: string;
  claims: ReceiptClaims;
}

/**
 * An execution's signed receipt, for the agent that made the call or the owner of the provider that answered
 * it (the two parties to it); anyone else's is not found, as a nonexistent one.
 */
export async function executionReceipt(ctx: Ctx, executionId: string): Promise<SignedExecutionReceipt> {
  const me = await requireAgent(ctx);
  const [party] = isUuid(executionId)
    ? await ctx.db.$queryRaw<{ id: string }[]>`
        SELECT e.id FROM executions e LEFT JOIN services s ON s.id = e.service_id
        WHERE e.id = ${executionId}::uuid AND (e.agent_id = ${me.id}::uuid OR s.agent_id = ${me.id}::uuid)`
    : [];
  if (!party) throw new NotFound('execution', executionId);
  const receipt = await recordedReceipt(ctx, executionId);
  return { executionId, signedReceipt: signedReceipt(ctx, receipt), keyId: ctx.services.signingKeys.current.kid, claims: receiptClaims(ctx, receipt) };
}

/** Why a token is not a receipt of this marketplace: `malformed`, `unknown_key`, `bad_signature`, `wrong_type`, `wrong_issuer`. */
export type ReceiptRefusal = 'malformed' | 'unknown_key' | 'bad_signature' | 'wrong_type' | 'wrong_issuer';

/** Checks a receipt: signed by one of the marketplace's keys, of its type, issued by it. */
export function verifyReceipt(
  services: Pick<Services, 'signingKeys' | 'config'>,
  token: string,
): { ok: true; claims: ReceiptClaims; keyId: string } | { ok: false; reason: ReceiptRefusal } {
  const result = verifyCompact(token, services.signingKeys.jwks.keys);
  if (!result.ok) return result;
  if (result.header.typ !== RECEIPT_TYP) return { ok: false, reason: 'wrong_type' };
  if (result.claims.iss !== services.config.publicBaseUrl) return { ok: false, reason: 'wrong_issuer' };
  const claims = result.claims as unknown as ReceiptClaims;
  if (!claims.receipt || typeof claims.receipt !== 'object' || typeof claims.receipt.execution_id !== 'string') return { ok: false, reason: 'malformed' };
  return { ok: true, claims, keyId: String(result.header.kid) };
}
