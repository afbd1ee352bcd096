// REST routes of webhooks (spec §4.6): registration, listing, change, deletion, delivery log, redelivery.
import { bucket, from, type Route } from './route';

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };
const webhookFields = /* GraphQL */ `
  fragment WebhookFields on Webhook {
    webhook_id: webhookId
    url
    events
    active
    disabled_reason: disabledReason
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const deliveryFields = /* GraphQL */ `
  fragment DeliveryFields on WebhookDelivery {
    delivery_id: deliveryId
    event_id: eventId
    event_type: eventType
    status
    attempt_count: attempts
    last_status: lastStatus
    last_error: lastError
    next_attempt_at: nextAttemptAt
    last_attempt_at: lastAttemptAt
    delivered_at: deliveredAt
    created_at: createdAt
    attempts: attemptLog {
      attempt
      status_code: statusCode
      error
      latency_ms: latencyMs
      at: createdAt
    }
  }
`;

export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/webhooks',
    bucket: bucket('webhooks_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Webhooks',
    summary: "Register a receiver of the caller's events",
    description:
      'Events are POSTed with the envelope `{id, type, created_at, data}` and Standard Webhooks headers: `webhook-signature` carries `v1a,<Ed25519>` (key at /.well-known/jwks.json) and `v1,<HMAC-SHA256>` with the `secret` returned here once. Retried about 5 s, 1 min, 5 min, 30 min, 2 h and 6 h after failures; a 410 turns the webhook off. At most 20 webhooks per agent (409 beyond).',
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateWebhook($input: WebhookInput!) {
        createWebhook(input: $input) {
          webhook_id: webhookId
          url
          events
          active
          secret
          created_at: createdAt
        }
      }
    `,
    variables: { input: from.body },
    bodySchema: { required: ['url', 'events'] },
  },
  {
    method: 'GET',
    path: '/webhooks',
    bucket: bucket('webhooks_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Webhooks',
    summary: "The caller's webhooks (never their secrets)",
    document: /* GraphQL */ `
      query Webhooks($first: Int, $offset: Int) {
        webhooks(first: $first, offset: $offset) {
          total: totalCount
          webhooks: nodes {
            ...WebhookFields
          }
        }
      }
      ${webhookFields}
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: '/webhooks/:id',
    bucket: bucket('webhooks_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Webhooks',
    summary: 'One webhook',
    errors: [404],
    document: /* GraphQL */ `
      query Webhook($id: ID!) {
        webhook(id: $id) {
          ...WebhookFields
        }
      }
      ${webhookFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'PATCH',
    path: '/webhooks/:id',
    bucket: bucket('webhooks_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Webhooks',
    summary: 'Change a webhook',
    description: 'Any of `url`, `events`, `active`; turning a webhook on again clears `disabled_reason`.',
    errors: [404],
    document: /* GraphQL */ `
      mutation UpdateWebhook($id: ID!, $input: WebhookInput!) {
        updateWebhook(id: $id, input: $input) {
          ...WebhookFields
        }
      }
      ${webhookFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'DELETE',
    path: '/webhooks/:id',
    bucket: bucket('webhooks_delete', 60),
    auth: 'agent',
    status: 200,
    tag: 'Webhooks',
    summary: 'Delete a webhook',
    description: 'With its pending deliveries and their log.',
    errors: [404],
    document: /* GraphQL */ `
      mutation DeleteWebhook($id: ID!) {
        deleteWebhook(id: $id) {
          deleted
          webhook_id: webhookId
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    bucket: bucket('webhooks_deliveries', 60),
    auth: 'agent',
    status: 200,
    tag: 'Webhooks',
    summary: "A webhook's delivery log",
    description: 'Newest first, each with every attempt; `status` filters (`pending`, `sending`, `delivered`, `failed`, `cancelled`).',
    errors: [404],
    document: /* GraphQL */ `
      query WebhookDeliveries($webhookId: ID!, $status: String, $first: Int, $offset: Int) {
        webhookDeliveries(webhookId: $webhookId, status: $status, first: $first, offset: $offset) {
          total: totalCount
          deliveries: nodes {
            ...DeliveryFields
          }
        }
      }
      ${deliveryFields}
    `,
    variables: { webhookId: from.path('id'), status: from.query('status', 'Only deliveries in this status'), ...page },
  },
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    bucket: bucket('webhooks_redeliver', 60),
    auth: 'agent',
    status: 201,
    tag: 'Webhooks',
    summary: 'Send an event again',
    description:
      'A new delivery of the same event (same `webhook-id`, so a receiver can tell) for a finished one; 409 while the original is still pending or the webhook is off.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation RedeliverWebhookDelivery($webhookId: ID!, $deliveryId: ID!) {
        redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {
          ...DeliveryFields
        }
      }
      ${deliveryFields}
    `,
    variables: { webhookId: from.path('id'), deliveryId: from.path('deliveryId') },
  },
];
