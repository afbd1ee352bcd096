// The marketplace's health, for anyone: each component's status, and the uptime over 1, 7 or 30 days.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { setQuery, useLocation } from '../../router';
import { Facts, Loaded, Page, Section, SelectField, Status, Table, Time } from '../../ui';

const HealthQuery = graphql(`
  query ConsoleHealth($days: Int) {
    health {
      status
      version
      uptimeSeconds
      checkedAt
      components {
        database {
          status
          kind
          latencyMs
        }
        scheduler {
          status
          jobs
          lastRunAt
        }
        sse {
          status
          openStreams
          redis
        }
        memory {
          status
          rssBytes
          heapUsedBytes
          vectorSearch
        }
      }
    }
    uptime(days: $days) {
      days
      uptimePercent
      minutesObserved
      minutesUp
      since
    }
  }
`);

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;

export function HealthPage() {
  const { query } = useLocation();
  const days = Number(query.get('days') ?? 30) || 30;
  const [result] = useQuery({ query: HealthQuery, variables: { days } });
  return (
    <Page title="Health">
      <Loaded result={result}>
        {({ health, uptime }) => (
          <>
            <Facts
              items={[
                ['Status', <Status key="s" value={health.status} />],
                ['Version', health.version],
                ['Up for', duration(health.uptimeSeconds)],
                ['Checked', <Time key="c" at={health.checkedAt} />],
              ]}
            />
            <Section title="Components">
              <Table
                caption="Components"
                rows={[
                  {
                    name: 'Database',
                    status: health.components.database.status,
                    detail: `${health.components.database.kind}${health.components.database.latencyMs === null ? '' : `, ${health.components.database.latencyMs.toFixed(1)} ms`}`,
                  },
                  { name: 'Scheduler', status: health.components.scheduler.status, detail: `${health.components.scheduler.jobs} jobs` },
                  {
                    name: 'Streams',
                    status: health.components.sse.status,
                    detail: `${health.components.sse.openStreams} open; Redis ${health.components.sse.redis}`,
                  },
                  {
                    name: 'Memory',
                    status: health.components.memory.status,
                    detail: `${mib(health.components.memory.rssBytes)} resident, ${mib(health.components.memory.heapUsedBytes)} heap; vector search ${health.components.memory.vectorSearch}`,
                  },
                ]}
                rowKey={(c) => c.name}
                columns={[
                  { label: 'Component', cell: (c) => c.name },
                  { label: 'Status', cell: (c) => <Status value={c.status} /> },
                  { label: 'Detail', cell: (c) => c.detail },
                ]}
              />
            </Section>
            <Section title="Uptime">
              <SelectField
                label="Over"
                value={String(days)}
                options={[
                  ['1', 'The last day'],
                  ['7', 'The last 7 days'],
                  ['30', 'The last 30 days'],
                ]}
                onChange={(e) => setQuery({ days: e.target.value === '30' ? null : e.target.value })}
              />
              <Facts
                items={[
                  ['Uptime', `${uptime.uptimePercent.toFixed(3)}%`],
                  ['Minutes up', `${uptime.minutesUp.toLocaleString()} of ${uptime.minutesObserved.toLocaleString()} observed`],
                  ['Observed since', <Time key="s" at={uptime.since} />],
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

export function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min ${seconds % 60} s`;
}
