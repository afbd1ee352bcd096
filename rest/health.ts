// REST routes of health and operations (spec §4.15).
import { bucket, from, type Route } from './route';

export const healthRoutes: Route[] = [
  {
    method: 'GET',
    path: '/health',
    bucket: bucket('health', 60),
    auth: 'none',
    status: 200,
    tag: 'Health',
    summary: 'Service health',
    description: 'Status (`ok`, `degraded`, or `down` when the database is unreachable), version and component checks.',
    answer: (report) => (report.status === 'down' || report.status === 'draining' ? { status: 503, headers: { 'Retry-After': '5' } } : undefined),
    answers: {
      503: 'The instance is `down` (the database is unreachable) or `draining` (shutting down): the same report, with Retry-After, so a load balancer stops sending',
    },
    document: /* GraphQL */ `
      query Health {
        health {
          status
          version
          uptime_seconds: uptimeSeconds
          checked_at: checkedAt
          components {
            database {
              status
              kind
              latency_ms: latencyMs
            }
            sse {
              status
              open_streams: openStreams
              redis
            }
            scheduler {
              status
              jobs
              last_run_at: lastRunAt
            }
            memory {
              status
              rss_bytes: rssBytes
              heap_used_bytes: heapUsedBytes
              heap_limit_bytes: heapLimitBytes
              vector_search: vectorSearch
            }
          }
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/ping',
    bucket: bucket('ping', 60),
    auth: 'none',
    status: 200,
    tag: 'Health',
    summary: 'Liveness',
    document: /* GraphQL */ `
      query Ping {
        pong: ping
      }
    `,
  },
  {
    method: 'GET',
    path: '/version',
    bucket: bucket('version', 60),
    auth: 'none',
    status: 200,
    tag: 'Health',
    summary: 'Platform version',
    document: /* GraphQL */ `
      query Version {
        version {
          version
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/uptime',
    bucket: bucket('uptime', 60),
    auth: 'none',
    status: 200,
    tag: 'Health',
    summary: 'Uptime over a window of days',
    document: /* GraphQL */ `
      query Uptime($days: Int) {
        uptime(days: $days) {
          uptime_percent: uptimePercent
          days
          minutes_observed: minutesObserved
          minutes_up: minutesUp
          since
        }
      }
    `,
    variables: { days: from.query('days', 'Window in days, 1-90 (default 30)') },
  },
];
