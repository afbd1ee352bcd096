// REST route of execute (spec §4.3).
import { bucket, from, paymentResponse, type AnswerMeta, type Route } from './route';

/** What bounded a paid call's charge: the spend mandate it was paid under, and its metering (each null when none). */
export const paymentBounds = /* GraphQL */ `
  fragment PaymentBoundsFields on PaymentReceipt {
    mandate {
      mandate_id: mandateId
      grantor_id: grantorId
      per_call_cents: perCallCents
      remaining_today_cents: remainingTodayCents
      remaining_this_month_cents: remainingThisMonthCents
    }
    metered {
      unit
      units
      charged_units: chargedUnits
      cents_per_unit: centsPerUnit
      max_cents: maxCents
    }
  }
`;

/** What an execution answers, on REST and to MCP's executeCapability. */
export const executionReceipt = /* GraphQL */ `
  ${paymentBounds}
  fragment ExecutionReceiptFields on ExecutionReceipt {
    execution_id: executionId
    capability
    mode
    status
    result
    error
    provider {
      service_id: serviceId
      service_key: serviceKey
      name
      reputation
    }
    transaction {
      transaction_id: transactionId
      cost_cents: costCents
      latency_ms: latencyMs
    }
    attempts {
      ordinal
      service_id: serviceId
      service_key: serviceKey
      outcome
      reason
      category
      status_code: statusCode
      retry_after_seconds: retryAfterSeconds
      latency_ms: latencyMs
      score
      costPerCall: priceCents
      usage {
        model
        prompt_tokens: promptTokens
        completion_tokens: completionTokens
        total_tokens: totalTokens
      }
      metered {
        unit
        units
        cents_per_unit: centsPerUnit
        charged_units: chargedUnits
        charged_cents: chargedCents
      }
    }
    routing {
      policy {
        max_cost_cents: maxCostCents
        deadline_ms: deadlineMs
        only
        ignore
        order
        allow_fallbacks: allowFallbacks
        sort
        min_success_rate: minSuccessRate
        max_latency_p95_ms: maxLatencyP95Ms
      }
      skipped {
        service_key: serviceKey
        reason
        detail
        price_cents: priceCents
      }
    }
    payment {
      method
      wallet_address: walletAddress
      held
      held_base_units: heldBaseUnits
      charged
      charged_base_units: chargedBaseUnits
      charged_cents: chargedCents
      fee
      fee_base_units: feeBaseUnits
      provider_share: providerShare
      provider_share_base_units: providerShareBaseUnits
      balance_after: balanceAfter
      balance_after_base_units: balanceAfterBaseUnits
      ...PaymentBoundsFields
      x402 {
        payment_id: paymentId
        payer
        amount
        amount_base_units: amountBaseUnits
        transaction
        network
      }
    }
    created_at: createdAt
    signed_receipt: signedReceipt
  }
`;

/**
 * What an execution's answer carries beside its body: its signed receipt (Signed-Receipt, the field's token) and,
 * for a call paid with PAYMENT-SIGNATURE, its PAYMENT-RESPONSE. (Each attempt's time at its provider is in its
 * Server-Timing on every surface: the execution adds it to the answer's facts, fallback.ts.)
 */
export function executionAnswer(receipt: {
  signed_receipt?: string | null;
  payment?: { x402?: { payer: string; transaction: string; network: string; amount_base_units: string } | null } | null;
}): AnswerMeta | undefined {
  const x402 = receipt?.payment?.x402;
  const paid = x402 ? paymentResponse({ payer: x402.payer, transaction: x402.transaction, network: x402.network, amount: x402.amount_base_units }) : undefined;
  const signed = receipt?.signed_receipt;
  if (!signed) return paid;
  return { ...paid, headers: { ...paid?.headers, 'Signed-Receipt': signed } };
}

const SIGNED_RECEIPT_TEXT =
  "the execution's receipt as a compact JWS (EdDSA, `typ` receipt+jwt) verifiable offline against /.well-known/jwks.json (docs/execution.md, Signed receipts)";

export const executionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/execute',
    bucket: bucket('execute', 100),
    auth: 'agent',
    status: 200,
    tag: 'Execution',
    summary: 'Execute a capability',
    description:
      "auto (default): the best-ranked providers are called in turn, up to 3, skipping providers cooling down after repeated failures; chosen: exactly `provider` (a service key or id). Each call is a POST of `{execution_id, capability, input, agent_id}` signed with the service's signing secret (Standard Webhooks); a 2xx JSON answer is the `result`, anything else a failure. `status` is `success` or `error` (every provider failed); `attempts` lists every provider tried, each failure with its precise `reason` and its `category` (timeout, connect_error, tls_error, provider_5xx, provider_4xx, provider_rate_limited with the provider's `retry_after_seconds`, bad_output, deadline_exceeded). `routing` (optional) bounds the call: `max_cost_cents`, `deadline_ms` (one budget for the whole call), `only` / `ignore` / `order` (service keys or ids), `allow_fallbacks`, `sort` (balanced, cost, latency, reputation, reliability), `min_success_rate`, `max_latency_p95_ms`; the answer's `routing.skipped` lists every provider passed over and why (`routing` is null when there was no policy and nobody was passed over; `routing.policy` echoes the policy as applied, defaults included). When every provider left is cooling down, the call waits for the first back within its deadline, else 503 with Retry-After at the earliest end. The marketplace itself (provider `marketplace`, listed by GET /capabilities with each capability's input and output JSON Schema) always serves the capabilities of its own systems (ticketing, security, radio, books: no registered service can), and is the provider of last resort for web and nlp: tried after up to 3 registered providers, or alone with mode chosen and provider `marketplace`; that input schema is the marketplace's own: a registered provider of any capability gets `input` exactly as sent, in either mode; the marketplace checks it only for its own attempt (400 naming `input.<field>` when it is the only provider to try: chosen by name, nobody else offers the capability, or every seller of it is cooling down; a failed attempt `invalid_input` when it is tried after others). 404 when nobody offers the capability; 503 `capability_unavailable` when only the marketplace could and this instance lacks what it needs (a model backend: the message names the configuration). Honours Idempotency-Key. With `task_id` (a task delegated to the caller, which must still be delegated: 404 / 409 otherwise) the call is made under the task: each provider is called only once its price is held from the task's budget, and the call is charged to the task when recorded; when what is left covers none of the providers, 402 `payment_required` before any is called. A paid call (a provider with a price) is paid by the caller: the highest price among the providers it may try is held on the caller's wallet before any is called, and the answering provider's price is charged when the call is recorded (its provider gets the price less the marketplace's fee; a call whose every provider failed is charged nothing). In sandbox mode (the default) a caller without a wallet has one opened at its first paid call, credited the sandbox starting balance (SANDBOX_STARTING_BALANCE). When the wallet does not cover it, 402 with the x402 `accepts` (also base64-encoded in PAYMENT-REQUIRED; in sandbox mode the detail names the faucet, POST /x402/sandbox/faucet); retry with PAYMENT-SIGNATURE, and a settled payment is credited to the caller's wallet and answered with PAYMENT-RESPONSE. `payment` says how the call was paid, what it cost (`charged`) and what is left in the wallet (`balance_after`); null when the call was free.",
    errors: [402, 404, 409, 503],
    answer: executionAnswer,
    responseHeaders: {
      'Signed-Receipt': `The answer's \`signed_receipt\`: ${SIGNED_RECEIPT_TEXT}`,
      'PAYMENT-RESPONSE':
        'When the call was paid with PAYMENT-SIGNATURE: the settlement (an x402 SettleResponse: success, transaction, network, payer), base64-encoded JSON',
    },
    document: /* GraphQL */ `
      mutation Execute($input: ExecuteInput!, $payment: String) {
        execute(input: $input, payment: $payment) {
          ...ExecutionReceiptFields
        }
      }
      ${executionReceipt}
    `,
    variables: {
      input: from.body,
      payment: from.header(
        'PAYMENT-SIGNATURE',
        'An x402 v2 payment for a paid call (the base64 of a PaymentPayload: scheme exact, an EIP-3009 authorization signed with EIP-712) for one of the `accepts` of its 402. Settled once: a replay of it for the same request answers what it paid for; for another request, 402',
      ),
    },
  },
  {
    method: 'GET',
    path: '/executions/:id/receipt',
    bucket: bucket('execution_receipt', 60),
    auth: 'agent',
    status: 200,
    tag: 'Execution',
    summary: "An execution's signed receipt",
    description:
      "For the agent that made the call or the owner of the provider that answered it (anyone else's execution is 404, as a nonexistent one). `signed_receipt` is the execution's receipt as a compact JWS (EdDSA, `typ` receipt+jwt, `kid` of /.well-known/jwks.json), made from the execution as recorded: the very token its execute answered while the same key signs. `claims` is its payload decoded: `iss`, `sub` (the caller), `jti` (the execution), `iat`, and `receipt`: execution_id, capability, mode, status, caller, provider (service key), input_sha256 and result_sha256 (SHA-256 of the RFC 8785 canonical JSON of the input as sent and of the result as answered, hex; result null when there was none), error, price_cents, latency_ms, transaction_id, payment (method, charged, fee and provider share in base units, the x402 settlement, and under a spend mandate `mandate_id` and `paid_by`, its grantor), attempts (each with its outcome, reason and category), created_at. A dispute may cite it (`receipt`).",
    errors: [404],
    document: /* GraphQL */ `
      query ExecutionReceipt($id: ID!) {
        executionReceipt(executionId: $id) {
          execution_id: executionId
          signed_receipt: signedReceipt
          key_id: keyId
          claims
        }
      }
    `,
    variables: { id: from.path('id') },
  },
];
