// REST routes of what a service's owner does with it once registered, beside PATCH /services/:serviceKey
// (rest/services.ts): pause, resume, remove, its own services, and their analytics (a beta feature).
import { bucket, from, type Route } from './route';
import { serviceFields } from './services';

const ownService = /* GraphQL */ `
  fragment OwnService on Service {
    ...ServiceListing
    resume_at: resumeAt
    status_reason: statusReason
    updated_at: updatedAt
  }
  ${serviceFields}
`;

const counts = 'calls successes failures charged_cents: chargedCents';

export const serviceOwnerRoutes: Route[] = [
  {
    method: 'POST',
    path: '/services/:serviceKey/pause',
    bucket: bucket('services_pause', 30),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: 'Pause a service',
    description:
      "The owner alone (another agent's service answers 404). From the next request on, on every instance, the service is out of `GET /services`, `resolve`, `execute` (auto and chosen) and sub-key provisioning, and its sub-keys fail `POST /keys/verify` (they are not revoked); it may still be changed. `active` (or `inactive`) → `paused`; 409 otherwise. `reason` (at most 500 characters) is recorded with the move. `resume_at` (ISO 8601, within 90 days) resumes it then: a beta feature, for Trusted agents and above (reputation 61+); 403 naming `resume_at` and the tier for the others.",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation PauseService($serviceKey: String!, $input: PauseServiceInput) {
        pauseService(serviceKey: $serviceKey, input: $input) {
          ...OwnService
        }
      }
      ${ownService}
    `,
    variables: { serviceKey: from.path('serviceKey'), input: from.body },
  },
  {
    method: 'POST',
    path: '/services/:serviceKey/resume',
    bucket: bucket('services_resume', 30),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: 'Resume a paused service, or reactivate an inactive one',
    description:
      "The owner alone. Offered again from the next request on, on every instance. `paused` → `active`, and `inactive` (taken out of service by the marketplace after a long run of failed calls) → `active`, its run of failures forgotten; 409 otherwise (a `suspended` service follows its provider's status: it comes back when the provider is restored).",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation ResumeService($serviceKey: String!) {
        resumeService(serviceKey: $serviceKey) {
          ...OwnService
        }
      }
      ${ownService}
    `,
    variables: { serviceKey: from.path('serviceKey') },
  },
  {
    method: 'DELETE',
    path: '/services/:serviceKey',
    bucket: bucket('services_remove', 30),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: 'Remove a service',
    description:
      'The owner alone. For good: the service is `removed`, never offered, listed or found by its key again (404 from then on, for its owner too, except in `GET /agents/me/services?status=removed`); its sub-keys are revoked and its ticket endpoint deleted. Its executions, transactions, disputes and tickets keep naming it, and its owner still reads its tickets. From any state but `removed`.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation RemoveService($serviceKey: String!) {
        removeService(serviceKey: $serviceKey) {
          service_key: serviceKey
          status
          updated_at: updatedAt
        }
      }
    `,
    variables: { serviceKey: from.path('serviceKey') },
  },
  {
    method: 'GET',
    path: ['/agents/me/services', '/my/services'],
    bucket: bucket('my_services', 60),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: "The caller's own services",
    description:
      'Newest first, in every state but `removed` (paused ones with their `resume_at`); `status` narrows to one state, `removed` included. `status_reason` says why an `inactive` service (taken out of service by the marketplace after a long run of failed calls) or a `suspended` one (its provider is suspended or banned) is out of service, and what brings it back.',
    document: /* GraphQL */ `
      query MyServices($status: String, $first: Int, $offset: Int) {
        myServices(status: $status, first: $first, offset: $offset) {
          total: totalCount
          services: nodes {
            ...OwnService
          }
        }
      }
      ${ownService}
    `,
    variables: {
      status: from.query('status', 'active, paused, inactive, suspended or removed'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/services/:serviceKey/analytics',
    bucket: bucket('services_analytics', 60),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: "A service's analytics (beta)",
    description:
      "A beta feature, for Trusted agents and above (reputation 61+): 403 naming the tier for the others. The owner alone (another agent's service answers 404). Its calls over the last `days` days (1-90, default 30) from the execution ledger — every attempt the marketplace made of it — in all, by UTC day and by capability: calls, successes, failures and what callers were charged for its successes (cents), with distinct callers, latency percentiles of its successes and the reasons of its failures.",
    errors: [403, 404],
    document: /* GraphQL */ `query ServiceAnalytics($serviceKey: String!, $days: Int) {
      serviceAnalytics(serviceKey: $serviceKey, days: $days) {
        service_key: serviceKey days since
        totals { ${counts} callers latency_p50_ms: latencyP50Ms latency_p95_ms: latencyP95Ms failure_reasons: failureReasons { reason count } }
        by_day: byDay { day ${counts} }
        by_capability: byCapability { capability ${counts} }
      }
    }`,
    variables: { serviceKey: from.path('serviceKey'), days: from.query('days', '1-90, default 30') },
  },
];
