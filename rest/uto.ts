// REST routes of orchestration tickets (UTO, spec §4.11): tickets and their moves, specialists,
// notification subscriptions and the live event stream.
import { UTO_MOVES } from '../src/domain/uto/tickets';
import { bucket, from, type Route } from './route';

const ticketFields = /* GraphQL */ `
  fragment UtoTicketFields on UtoTicket {
    id: ticketId
    intent
    domain
    context
    required_capabilities: requiredCapabilities
    max_budget_usd: maxBudgetUsd
    state
    state_history: stateHistory {
      from
      to
      triggered_by: triggeredBy
      by
      at
      note
    }
    matches
    deadline
    owner_agent_id: ownerAgentId
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const specialistFields = /* GraphQL */ `
  fragment UtoSpecialistFields on UtoSpecialist {
    agentId
    name
    domain
    capabilities
    reputation
    tier
    registeredAt
    updatedAt
  }
`;
const subscriptionFields = /* GraphQL */ `
  fragment UtoSubscriptionFields on UtoNotificationSubscription {
    subscriptionId
    eventTypes
    deliveryType
    domain
    webhookUrl
    status
    cursor
    createdAt
  }
`;
const eventFields = /* GraphQL */ `
  fragment UtoEventFields on UtoEvent {
    id
    sequence
    event
    type
    event_id: eventId
    ticket_id: ticketId
    domain
    created_at: createdAt
    data
  }
`;

/** The table of moves as the OpenAPI description shows it. */
const MOVES = Object.entries(UTO_MOVES)
  .filter(([, to]) => to.length)
  .map(([from, to]) => `${from} → ${to.join(', ')}`)
  .join('; ');

export const utoRoutes: Route[] = [
  {
    method: 'POST',
    path: '/uto/tickets',
    bucket: bucket('uto_ticket_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Orchestration',
    summary: 'Submit an orchestration ticket',
    description:
      "`intent` (≤ 2000 characters), `domain` (lower-case letters, digits, dashes), `context` (a JSON object ≤ 64 KiB) required; `required_capabilities` (≤ 20), `max_budget_usd` (dollars, two decimals), `deadline` (ISO 8601, default 7 days, at most 90) optional. The ticket starts `submitted`; `uto.ticket.created` goes to the caller's webhooks, notification subscriptions and stream. At most 500 open tickets per agent (409 beyond).",
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateUtoTicket($input: CreateUtoTicketInput!) {
        createUtoTicket(input: $input) {
          ...UtoTicketFields
        }
      }
      ${ticketFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/uto/tickets',
    bucket: bucket('uto_ticket_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: "The caller's tickets, newest first",
    document: /* GraphQL */ `
      query UtoTickets($domain: String, $state: String, $first: Int, $offset: Int) {
        utoTickets(domain: $domain, state: $state, first: $first, offset: $offset) {
          total: totalCount
          tickets: nodes {
            ...UtoTicketFields
          }
        }
      }
      ${ticketFields}
    `,
    variables: {
      domain: from.query('domain', 'Only tickets of this domain'),
      state: from.query('state', 'Only tickets in this state'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/uto/tickets/:id',
    bucket: bucket('uto_ticket_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: 'A ticket with its state history and matches',
    errors: [404],
    document: /* GraphQL */ `
      query UtoTicket($id: String!) {
        utoTicket(id: $id) {
          ...UtoTicketFields
        }
      }
      ${ticketFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/uto/tickets/:id/advance',
    bucket: bucket('uto_ticket_advance', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: 'Move a ticket',
    description: `\`target_state\` and \`triggered_by\` (\`system\`, \`external\` or \`timer\`) required; \`note\` optional. The owner makes any move of the table with any of the three triggers: the ticket holds no money and no other agent's state. Each move is appended to \`state_history\` as \`{ from, to, triggered_by, by, at, note }\`: \`triggered_by\` is what the caller says triggered it, \`by\` who made it (the owner's agent id; \`marketplace\` only for the marketplace's own moves), so a \`timer\` move an owner claimed shows as the owner's. An unknown state or trigger is 400; a move outside the table is 409 and changes nothing. The moves: ${MOVES}. The marketplace makes its own moves: a validated ticket is matched (system) once a specialist of its domain covers its required capabilities, or a provider offers each of them; an open ticket past its deadline expires (timer). Each move is announced as \`uto.ticket.state_changed\`.`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation AdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {
        advanceUtoTicket(id: $id, input: $input) {
          ...UtoTicketFields
        }
      }
      ${ticketFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'GET',
    path: '/uto/events',
    bucket: bucket('uto_events', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: "The events of the caller's tickets as Server-Sent Events",
    description:
      "Runs `Subscription.utoEvents`: one message per event (`event:` its type, `id:` its number in the caller's stream), optionally only one `domain`'s, or filtered as an `sse` notification subscription (`subscription_id`) says. `Last-Event-ID` replays the events after it first (events are kept 30 days). At most STREAMS_PER_AGENT open streams per agent (429 beyond).",
    errors: [404, 409, 429],
    document: /* GraphQL */ `
      subscription UtoEvents($domain: String, $subscriptionId: String, $after: Int) {
        utoEvents(domain: $domain, subscriptionId: $subscriptionId, after: $after) {
          ...UtoEventFields
        }
      }
      ${eventFields}
    `,
    variables: {
      domain: from.query('domain', 'Only events of tickets of this domain'),
      subscriptionId: from.query('subscription_id', 'An sse notification subscription whose filters apply'),
      after: from.header('Last-Event-ID', 'Resume after this event id'),
    },
  },
  {
    method: 'POST',
    path: '/uto/notifications/subscribe',
    bucket: bucket('uto_subscribe', 60),
    auth: 'agent',
    status: 201,
    tag: 'Orchestration',
    summary: "Subscribe to the events of the caller's tickets",
    description:
      "`eventTypes` (`uto.ticket.created`, `uto.ticket.state_changed`, or `*`) and `deliveryType` required; `domain` optional (only that domain's tickets). `webhook` needs `webhookUrl` (HTTPS): each event is POSTed from the durable outbox, signed with Standard Webhooks (Ed25519 `v1a`, and HMAC `v1` with the `secret` shown once here). `polling`: read the events at `pollPath`, after a cursor, each once and in order. `sse`: read `streamPath` (the /uto/events stream filtered as the subscription says). A subscription sees the events after it was made. At most 50 active per agent (409 beyond).",
    errors: [409],
    document: /* GraphQL */ `
      mutation SubscribeUtoNotifications($input: SubscribeUtoNotificationsInput!) {
        subscribeUtoNotifications(input: $input) {
          subscriptionId
          secret
          pollPath
          streamPath
          subscription {
            ...UtoSubscriptionFields
          }
        }
      }
      ${subscriptionFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/uto/notifications',
    bucket: bucket('uto_subscription_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: "The caller's notification subscriptions, newest first",
    document: /* GraphQL */ `
      query UtoNotificationSubscriptions($first: Int, $offset: Int) {
        utoNotificationSubscriptions(first: $first, offset: $offset) {
          total: totalCount
          subscriptions: nodes {
            ...UtoSubscriptionFields
          }
        }
      }
      ${subscriptionFields}
    `,
    variables: { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') },
  },
  {
    method: 'GET',
    path: '/uto/notifications/:id/events',
    bucket: bucket('uto_poll', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: "A polling subscription's events after a cursor",
    description:
      "The subscription's events after `after`, oldest first, at most `limit` (1-500, default 100), with `cursor` (the last one's number) and `has_more`. Without `after`, reading starts after the cursor last acknowledged; passing `after` acknowledges every event up to it. So a subscriber that passes each answer's `cursor` back as `after` reads every event exactly once and in order, and one that lost an answer reads it again. Only `polling` subscriptions (409 otherwise).",
    errors: [404, 409],
    document: /* GraphQL */ `
      query UtoNotificationEvents($id: String!, $after: Int, $limit: Int) {
        utoNotificationEvents(subscriptionId: $id, after: $after, limit: $limit) {
          cursor
          has_more: hasMore
          events {
            ...UtoEventFields
          }
        }
      }
      ${eventFields}
    `,
    variables: {
      id: from.path('id'),
      after: from.query('after', 'The cursor of the previous answer'),
      limit: from.query('limit', 'Events to return, 1-500 (default 100)'),
    },
  },
  {
    method: 'DELETE',
    path: '/uto/notifications/:id',
    bucket: bucket('uto_subscription_cancel', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: 'Cancel a notification subscription',
    description: 'active → cancelled (409 when it is already): nothing more is delivered to it, and webhook deliveries not yet sent are cancelled.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CancelUtoNotificationSubscription($id: String!) {
        cancelUtoNotificationSubscription(id: $id) {
          ...UtoSubscriptionFields
        }
      }
      ${subscriptionFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/uto/agents/register-specialist',
    bucket: bucket('uto_specialist_register', 60),
    auth: 'agent',
    status: 201,
    tag: 'Orchestration',
    summary: 'Register the caller as a specialist of a domain',
    description:
      '`domain` and `capabilities` (≤ 100 capability identifiers) required. Registering again for a domain replaces the capabilities there. Validated tickets of the domain waiting for a match are looked at again at once.',
    document: /* GraphQL */ `
      mutation RegisterUtoSpecialist($input: RegisterUtoSpecialistInput!) {
        registerUtoSpecialist(input: $input) {
          ...UtoSpecialistFields
        }
      }
      ${specialistFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/uto/agents/specialists',
    bucket: bucket('uto_specialist_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Orchestration',
    summary: 'Registered specialists, best reputation first',
    document: /* GraphQL */ `
      query UtoSpecialists($domain: String, $first: Int, $offset: Int) {
        utoSpecialists(domain: $domain, first: $first, offset: $offset) {
          total: totalCount
          specialists: nodes {
            ...UtoSpecialistFields
          }
        }
      }
      ${specialistFields}
    `,
    variables: {
      domain: from.query('domain', 'Only specialists of this domain'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
];
