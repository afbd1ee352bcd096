// REST routes of support tickets (spec §4.5). Tickets are created with POST /execute and support-ticket.
import { bucket, from, type Route } from './route';

const ticketFields = /* GraphQL */ `
  fragment TicketFields on Ticket {
    ticket_key: ticketKey
    type
    subject
    description
    status
    priority
    priority_resolution: priorityResolution
    agentName
    created_by: createdBy
    target_service: targetService
    callback_url: callbackUrl
    resolution
    comments {
      comment_id: commentId
      content
      author
      created_at: createdAt
    }
    history {
      from
      to
      actor_kind: actorKind
      actor_id: actorId
      note
      at
    }
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const ticketRoutes: Route[] = [
  {
    method: 'GET',
    path: '/tickets',
    bucket: bucket('tickets_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tickets',
    summary: 'Tickets the caller created or that target its services',
    description:
      'Newest first; `status` filters. A list of one unfinished status (`open`, `in_progress`, `waiting`) is a queue in the order to handle it: tickets filed with `priority_resolution` (their filer was a Contributor or above) first, then the oldest.',
    document: /* GraphQL */ `
      query Tickets($status: String, $first: Int, $offset: Int) {
        tickets(status: $status, first: $first, offset: $offset) {
          total: totalCount
          tickets: nodes {
            ...TicketFields
          }
        }
      }
      ${ticketFields}
    `,
    variables: {
      status: from.query('status', 'open, in_progress, waiting, resolved or closed'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/tickets/endpoints',
    bucket: bucket('tickets_endpoints', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tickets',
    summary: "The ticket endpoints of the caller's services",
    document: /* GraphQL */ `
      query TicketEndpoints($first: Int, $offset: Int) {
        ticketEndpoints(first: $first, offset: $offset) {
          total: totalCount
          endpoints: nodes {
            service_key: serviceKey
            ticket_receive_url: ticketReceiveUrl
            name
            created_at: createdAt
            updated_at: updatedAt
          }
        }
      }
    `,
    variables: {
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'POST',
    path: '/tickets/register-endpoint',
    bucket: bucket('tickets_register_endpoint', 60),
    auth: 'agent',
    status: 201,
    tag: 'Tickets',
    summary: 'Register where a service receives its tickets',
    description:
      "For one of the caller's services (another agent's is 404); replaces an earlier endpoint. Every event of the tickets whose `target_service` is the service is POSTed there — `ticket.created`, `ticket.updated` (each status move) and `ticket.commented` — signed like webhooks with the `secret` returned here once, and retried like them; forwards of tickets filed with `priority_resolution` go first.",
    errors: [404],
    document: /* GraphQL */ `
      mutation RegisterTicketEndpoint($input: RegisterTicketEndpointInput!) {
        registerTicketEndpoint(input: $input) {
          registered
          service_key: serviceKey
          ticket_receive_url: ticketReceiveUrl
          name
          secret
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/tickets/:ticketKey',
    bucket: bucket('tickets_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tickets',
    summary: 'A ticket with its comments and history',
    description: "For its creator and the target service's owner; anyone else gets 404.",
    errors: [404],
    document: /* GraphQL */ `
      query Ticket($ticketKey: String!) {
        ticket(ticketKey: $ticketKey) {
          ...TicketFields
        }
      }
      ${ticketFields}
    `,
    variables: { ticketKey: from.path('ticketKey') },
  },
  {
    method: 'PATCH',
    path: '/tickets/:ticketKey/status',
    bucket: bucket('tickets_status', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tickets',
    summary: 'Move a ticket',
    description:
      "From any of the five statuses (`open`, `in_progress`, `waiting`, `resolved`, `closed`) to the given one: work may go back and forth, and a resolved or closed ticket may be reopened. `resolution` is stored. Each move is recorded in the ticket's `history` (with the resolution as its note) and sent as `ticket.updated` to the creator's `callback_url`, the service's ticket endpoint and webhooks. The status the ticket already has answers 200 and changes nothing (no event, no history entry), unless it comes with a new `resolution`, which is stored and recorded like a move.",
    errors: [404],
    document: /* GraphQL */ `
      mutation UpdateTicketStatus($ticketKey: String!, $input: TicketStatusInput!) {
        updateTicketStatus(ticketKey: $ticketKey, input: $input) {
          ticket_key: ticketKey
          status
          resolution
          updated_at: updatedAt
        }
      }
    `,
    variables: { ticketKey: from.path('ticketKey'), input: from.body },
  },
  {
    method: 'POST',
    path: '/tickets/:ticketKey/comments',
    bucket: bucket('tickets_comment', 60),
    auth: 'agent',
    status: 201,
    tag: 'Tickets',
    summary: 'Comment on a ticket',
    errors: [404],
    document: /* GraphQL */ `
      mutation AddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {
        addTicketComment(ticketKey: $ticketKey, input: $input) {
          ticket_key: ticketKey
          comment_id: commentId
          content
          author
          created_at: createdAt
        }
      }
    `,
    variables: { ticketKey: from.path('ticketKey'), input: from.body },
  },
];
