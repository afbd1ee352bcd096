// REST routes of spend mandates (docs/payments.md, Spend mandates): granted to a sub-agent, read by either side,
// changed or revoked by the grantor.
import { bucket, from, type Route } from './route';

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };
const periodFields = /* GraphQL */ `
  fragment MandatePeriodFields on MandatePeriodUse {
    period
    starts_on: startsOn
    cap_cents: capCents
    spent_cents: spentCents
    held_cents: heldCents
    calls
    remaining_cents: remainingCents
    alerted
  }
`;
const mandateFields = /* GraphQL */ `
  fragment MandateFields on Mandate {
    mandate_id: mandateId
    grantor_id: grantorId
    agent_id: agentId
    per_call_cents: perCallCents
    daily_cents: dailyCents
    monthly_cents: monthlyCents
    capabilities
    expires_at: expiresAt
    revoked_at: revokedAt
    in_force: inForce
    today {
      ...MandatePeriodFields
    }
    this_month: thisMonth {
      ...MandatePeriodFields
    }
    created_at: createdAt
    updated_at: updatedAt
  }
  ${periodFields}
`;

const CAPS =
  '`per_call_cents` (providers priced over it are passed over), `daily_cents` and `monthly_cents` (UTC day and month; at least one of the three), `capabilities` (prefixes it pays for; none: every capability), `expires_at`';

export const mandateRoutes: Route[] = [
  {
    method: 'POST',
    path: '/mandates',
    bucket: bucket('mandates_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Payments',
    summary: "Let a sub-agent pay for its calls from the caller's wallet, within caps",
    description: `\`agent_id\` names a sub-agent at any depth below the caller (another agent: 404). ${CAPS}. The sub-agent's paid calls of the capabilities it covers are then paid from the caller's wallet: each holds its price against the caps before any provider is called (402 \`payment_required\` naming the cap with no room otherwise) and is counted by the statement that charges it, so calls racing on any number of instances never overrun a cap. Every paid answer says what the mandate has left (\`payment.mandate\`). At 50, 80 and 100 % of a day's or a month's cap, a \`mandate.threshold_reached\` event goes to both sides, once per threshold per period. A sub-agent holds one mandate in force at a time (409 while another is).`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation GrantMandate($input: GrantMandateInput!) {
        grantMandate(input: $input) {
          ...MandateFields
        }
      }
      ${mandateFields}
    `,
    variables: { input: from.body },
    bodySchema: { required: ['agentId'] },
  },
  {
    method: 'GET',
    path: '/mandates',
    bucket: bucket('mandates_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: 'The mandates the caller granted, or holds',
    description: '`role`: `granted` (default) or `held`. Newest first, each with its use today and this month, as its enforcement reads it.',
    document: /* GraphQL */ `
      query Mandates($role: String, $first: Int, $offset: Int) {
        mandates(role: $role, first: $first, offset: $offset) {
          total: totalCount
          mandates: nodes {
            ...MandateFields
          }
        }
      }
      ${mandateFields}
    `,
    variables: { role: from.query('role', '`granted` (default) or `held`'), ...page },
  },
  {
    method: 'GET',
    path: '/mandates/:id',
    bucket: bucket('mandates_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: 'One mandate and its use (its spend report)',
    description:
      'For its grantor or its sub-agent. `today` and `this_month` are the counters its enforcement reads: what was charged, what calls in flight hold, what is left, and the thresholds alerted.',
    errors: [404],
    document: /* GraphQL */ `
      query Mandate($id: ID!) {
        mandate(id: $id) {
          ...MandateFields
        }
      }
      ${mandateFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'PATCH',
    path: '/mandates/:id',
    bucket: bucket('mandates_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: 'Change a mandate the caller granted',
    description: `Any of ${CAPS}; null lifts a cap or the expiry (one cap must stay). The next call's hold reads it. 409 once revoked.`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation UpdateMandate($id: ID!, $input: MandateChangeInput!) {
        updateMandate(id: $id, input: $input) {
          ...MandateFields
        }
      }
      ${mandateFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'DELETE',
    path: '/mandates/:id',
    bucket: bucket('mandates_revoke', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: 'Revoke a mandate the caller granted',
    description: 'Calls in flight under it are still charged to it; no new call is paid. 409 when already revoked.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation RevokeMandate($id: ID!) {
        revokeMandate(id: $id) {
          ...MandateFields
        }
      }
      ${mandateFields}
    `,
    variables: { id: from.path('id') },
  },
];
