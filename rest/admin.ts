// REST routes of administration (spec §4.15, agent rows): the administrator key only.
import { bucket, from, type Route } from './route';

export const adminRoutes: Route[] = [
  {
    method: 'PATCH',
    path: '/admin/agents/:agentId/status',
    bucket: bucket('admin_agent_status', 60),
    auth: 'admin',
    status: 200,
    tag: 'Administration',
    summary: "Set an agent's status",
    description:
      "The agent takes the status given (spec §3), stored and answered as `status`. SUSPENDED and BANNED reach its whole subtree of sub-agents as a bound: they and it get 403 on every agent operation from the next request on, their sub-keys fail verification and their services become `suspended` (out of listings and rankings) until the status is lifted. Each agent's status in force, `effective_status`, is the worst of the status given and its ancestors', so lifting a suspension restores the sub-agents not suspended on their own; a sub-agent given ACTIVE under a suspended ancestor answers `status` ACTIVE, `effective_status` SUSPENDED and `effective_status_imposed_by` the ancestor (the nearest whose own status it is), and acts once that ancestor is restored.",
    errors: [404],
    document: /* GraphQL */ `
      mutation UpdateAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {
        updateAgentStatus(agentId: $agentId, input: $input) {
          updated
          agent_id: agentId
          status
          effective_status: effectiveStatus
          effective_status_imposed_by: effectiveStatusImposedBy
        }
      }
    `,
    variables: { agentId: from.path('agentId'), input: from.body },
  },
  {
    method: 'GET',
    path: '/admin/stats',
    bucket: bucket('admin_stats', 60),
    auth: 'admin',
    status: 200,
    tag: 'Administration',
    summary: 'Platform-wide statistics',
    document: /* GraphQL */ `
      query AdminStats {
        adminStats {
          agents {
            total
            active
            suspended
            banned
            sub_agents: subAgents
          }
          services {
            total
            active
          }
          sub_keys: subKeys {
            total
            live
          }
          executions {
            total
            last_30d: last30d
            succeeded
            failed
          }
          disputes {
            total
            open
          }
          revenue_cents: revenueCents
          total_capabilities: capabilities
        }
      }
    `,
  },
  {
    method: 'POST',
    path: '/admin/radio/announcements',
    bucket: bucket('admin_radio_announcements', 60),
    auth: 'admin',
    status: 201,
    tag: 'Administration',
    summary: 'Broadcast a marketplace announcement on the radio',
    description:
      '`message` (1-2000 characters) required; `title` (at most 200) and `data` (an object, at most 16 KiB) optional. Every radio listener gets it (`GET /ext/radio/stream`, channel `announcements`).',
    document: /* GraphQL */ `
      mutation CreateRadioAnnouncement($input: CreateRadioAnnouncementInput!) {
        createRadioAnnouncement(input: $input) {
          id
          sequence
          event
          type
          event_id: eventId
          channel
          data
          created_at: createdAt
        }
      }
    `,
    variables: { input: from.body },
    bodySchema: { required: ['message'] },
  },
];
