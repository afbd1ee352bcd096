// The x402 v2 resource-server side: the payment requirements a paid call answers 402 with, the typed error
// that carries them (problem+json members on REST, extensions on GraphQL), and reading a client's
// PAYMENT-SIGNATURE. Types, encodings and payload rules are the official @x402/core ones.
import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettleResponse } from '@x402/core/types';
import { parsePaymentPayload } from '@x402/core/schemas';
import { AppError, ValidationFailed } from '../../platform/errors';
import type { PaymentSetup } from './setup';

export const X402_VERSION = 2;

/** The requirements of paying `amount` base units for `resource`: scheme `exact`, EIP-3009 on the asset. */
export function requirementsFor(setup: PaymentSetup, amount: bigint): PaymentRequirements {
  return {
    scheme: 'exact',
    network: setup.network,
    asset: setup.asset.address,
    amount: amount.toString(),
    payTo: setup.payTo,
    maxTimeoutSeconds: setup.maxTimeoutSeconds,
    // The token's EIP-712 domain: the exact scheme signs EIP-3009 under it.
    extra: { name: setup.asset.eip712.name, version: setup.asset.eip712.version },
  };
}

export interface PaymentRequiredBody {
  x402Version: number;
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  /** Why an attempted payment was refused (an x402 reason such as `invalid_exact_evm_payload_signature`). */
  error?: string;
}

/**
 * 402 payment_required with the x402 PaymentRequired members; the REST layer also sends them
 * base64-encoded in PAYMENT-REQUIRED (platform/http.ts), GraphQL in `extensions`.
 */
export class PaymentRequired extends AppError {
  readonly body: PaymentRequiredBody;
  constructor(message: string, body: PaymentRequiredBody) {
    super('payment_required', message, { ...body });
    this.body = body;
  }
}

/** An EIP-3009 authorization as the exact scheme's payload carries it. */
export interface Eip3009Payload {
  signature: `0x${string}`;
  authorization: { from: `0x${string}`; to: `0x${string}`; value: string; validAfter: string; validBefore: string; nonce: `0x${string}` };
}

export interface ReadPayment {
  payload: PaymentPayload;
  authorization: Eip3009Payload['authorization'];
  /** Lower-case. */
  payer: string;
  /** Lower-case. */
  nonce: string;
  value: bigint;
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_NONCE = /^0x[0-9a-fA-F]{64}$/;
const HEX_SIGNATURE = /^0x[0-9a-fA-F]+$/;
const UINT = /^\d{1,78}$/;

/**
 * A PAYMENT-SIGNATURE value: the base64 of the PaymentPayload's JSON (x402's HTTP encoding), or that JSON
 * itself (GraphQL clients may pass either). Anything that is not a v2 exact EIP-3009 payload is a 400
 * naming `field`; whether it pays is the facilitator's to say.
 */
export function readPayment(raw: string, field = 'payment'): ReadPayment {
  const fail = (message: string): never => {
    throw new ValidationFailed([{ path: field, message }]);
  };
  const text = raw.trim();
  let json: unknown;
  try {
    json = JSON.parse(text.startsWith('{') ? text : Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    return fail('must be an x402 PaymentPayload: its JSON, base64-encoded');
  }
  const parsed = parsePaymentPayload(json);
  if (!parsed.success)
    return fail(`is not an x402 PaymentPayload: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'} ${i.message}`).join('; ')}`);
  const payload = parsed.data;
  if (payload.x402Version !== X402_VERSION) return fail(`must be x402 version ${X402_VERSION}, not ${payload.x402Version}`);
  if (payload.accepted.scheme !== 'exact') return fail(`pays with scheme ${payload.accepted.scheme}; this marketplace accepts exact`);
  const inner = payload.payload as Partial<Eip3009Payload>;
  const a = inner.authorization;
  if (!a || typeof a !== 'object') return fail('must carry an EIP-3009 authorization (payload.authorization)');
  if (typeof inner.signature !== 'string' || !HEX_SIGNATURE.test(inner.signature)) fail('payload.signature must be a hexadecimal signature');
  if (typeof a.from !== 'string' || !HEX_ADDRESS.test(a.from)) fail('payload.authorization.from must be an address');
  if (typeof a.to !== 'string' || !HEX_ADDRESS.test(a.to)) fail('payload.authorization.to must be an address');
  if (typeof a.nonce !== 'string' || !HEX_NONCE.test(a.nonce)) fail('payload.authorization.nonce must be 32 bytes in hexadecimal');
  for (const k of ['value', 'validAfter', 'validBefore'] as const) {
    if (typeof a[k] !== 'string' || !UINT.test(a[k] as string)) fail(`payload.authorization.${k} must be an unsigned integer as a string`);
  }
  return {
    payload: payload as PaymentPayload,
    authorization: a as Eip3009Payload['authorization'],
    payer: a.from!.toLowerCase(),
    nonce: a.nonce!.toLowerCase(),
    value: BigInt(a.value!),
  };
}

/** Whether a payload was made for these requirements (the fields that decide what and whom it pays). */
export function acceptedMatches(accepted: PaymentRequirements, required: PaymentRequirements): boolean {
  return (
    accepted.scheme === required.scheme &&
    accepted.network === required.network &&
    accepted.asset.toLowerCase() === required.asset.toLowerCase() &&
    accepted.payTo.toLowerCase() === required.payTo.toLowerCase() &&
    accepted.amount === required.amount
  );
}

/** What a settled payment answers with (PAYMENT-RESPONSE). */
export function settleResponse(setup: PaymentSetup, payer: string, transaction: string, amount: bigint): SettleResponse {
  return { success: true, payer, transaction, network: setup.network, amount: amount.toString() };
}
