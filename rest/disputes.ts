// REST routes of disputes (spec §4.4) and their administration (§4.15).
import { bucket, from, type Route } from './route';

const disputeFields = /* GraphQL */ `
  fragment DisputeFields on Dispute {
    dispute_id: disputeId
    form
    type
    reason
    status
    priority_resolution: priorityResolution
    resolved
    resolution
    resolved_by: resolvedBy
    refund_cents: refundCents
    description
    evidence
    agent_id: agentId
    service_id: serviceId
    transaction_id: transactionId
    execution_id: executionId
    provider_agent_id: providerAgentId
    created_at: createdAt
    resolved_at: resolvedAt
  }
`;

export const disputeRoutes: Route[] = [
  {
    method: 'POST',
    path: '/disputes',
    bucket: bucket('disputes_create', 30),
    auth: 'agent',
    status: 201,
    tag: 'Disputes',
    summary: 'Open a dispute',
    description:
      "Form A: `serviceId`, `type` (billing, quality, availability), `description`, `evidence`. Form B: `transaction_id` (one of the caller's charges), `reason` (provider_error, billing_error, service_failure, other), `description`, and optionally `receipt`, the call's signed receipt (`signed_receipt` of its execute answer): 400 when it is not one the marketplace signed or is another execution's; kept as the dispute's `evidence` (`signed_receipt`, `key_id`). A body with `transaction_id`, or with `reason` and neither `serviceId` nor `type`, is form B (a missing `transaction_id` is named as such); any other is form A. Created `open`; the pipeline then refunds and resolves what the records prove (every attempt failed, a charge other than the provider's price, or a charge a cited receipt shows the call failed or cost less) and sends the rest to `under_review`. One dispute per transaction (409).",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CreateDispute($input: CreateDisputeInput!) {
        createDispute(input: $input) {
          dispute_id: disputeId
          status
          form
          priority_resolution: priorityResolution
          created_at: createdAt
        }
      }
    `,
    variables: { input: from.body },
    bodySchema: { anyOf: [{ required: ['serviceId', 'type', 'description'] }, { required: ['transactionId', 'reason'] }] },
  },
  {
    method: 'GET',
    path: '/disputes/:id',
    bucket: bucket('disputes_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Disputes',
    summary: "One of the caller's disputes",
    errors: [404],
    document: /* GraphQL */ `
      query Dispute($id: ID!) {
        dispute(id: $id) {
          ...DisputeFields
        }
      }
      ${disputeFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/admin/disputes',
    bucket: bucket('admin_disputes', 60),
    auth: 'admin',
    status: 200,
    tag: 'Administration',
    summary: 'Every dispute',
    description:
      'Newest first; `status` filters (open, under_review, resolved). With `open` or `under_review` it is the review queue, in the order to handle it: disputes filed with `priority_resolution` (their filer was a Contributor or above) first, then the oldest.',
    document: /* GraphQL */ `
      query AdminDisputes($status: String, $first: Int, $offset: Int) {
        adminDisputes(status: $status, first: $first, offset: $offset) {
          total: totalCount
          disputes: nodes {
            ...DisputeFields
          }
        }
      }
      ${disputeFields}
    `,
    variables: {
      status: from.query('status', 'open, under_review or resolved'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'PATCH',
    path: '/admin/disputes/:disputeId/resolve',
    bucket: bucket('admin_disputes_resolve', 60),
    auth: 'admin',
    status: 200,
    tag: 'Administration',
    summary: 'Resolve a dispute',
    description:
      'Answers `resolved: true` with who resolved it in `resolved_by` (`admin`). `resolution` is required; `refund_cents` refunds part or all of a disputed charge through the ledger (and costs the provider reputation). A resolved dispute answers 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation ResolveDispute($id: ID!, $input: ResolveDisputeInput!) {
        resolveDispute(id: $id, input: $input) {
          resolved
          resolved_by: resolvedBy
          dispute_id: disputeId
          status
          resolution
          refund_cents: refundCents
          resolved_at: resolvedAt
        }
      }
    `,
    variables: { id: from.path('disputeId'), input: from.body },
  },
  {
    method: 'GET',
    path: '/admin/revenue',
    bucket: bucket('admin_revenue', 60),
    auth: 'admin',
    status: 200,
    tag: 'Administration',
    summary: 'Revenue analytics from the ledger',
    description:
      "Charges, refunds and net (integer cents) over `days` (1-365, default 30), in total, by day and by capability; and `fees`, the marketplace's own revenue: the fee it takes on every paid call (`fee_bps` of the price), less what refunds gave back, from the ledger's revenue account (USDC, and its base units).",
    document: /* GraphQL */ `
      query AdminRevenue($days: Int) {
        adminRevenue(days: $days) {
          days
          totals {
            gross_cents: grossCents
            refunds_cents: refundsCents
            net_cents: netCents
            executions
            paid_executions: paidExecutions
          }
          by_day: byDay {
            day
            gross_cents: grossCents
            refunds_cents: refundsCents
            net_cents: netCents
            fees
            fees_base_units: feesBaseUnits
          }
          by_capability: byCapability {
            capability
            gross_cents: grossCents
            refunds_cents: refundsCents
            net_cents: netCents
            executions
          }
          fees {
            fees
            fees_base_units: feesBaseUnits
            refunded
            refunded_base_units: refundedBaseUnits
            net
            net_base_units: netBaseUnits
            fee_bps: feeBps
            asset
          }
        }
      }
    `,
    variables: { days: from.query('days', '1-365, default 30') },
  },
];
