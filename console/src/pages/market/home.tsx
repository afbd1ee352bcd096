// The market's front page, for anyone: the marketplace's counts, its top services and its recent executions.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { CapabilityLinks } from './capability-links';
import { Facts, Loaded, Page, Section, Status, Table, Time } from '../../ui';

const MarketHome = graphql(`
  query ConsoleMarketHome {
    showcase {
      stats {
        totalAgents
        totalServices
        totalCapabilities
        totalTransactions
        totalTransactions30d
      }
      topServices {
        serviceId
        serviceKey
        name
        providerName
        reputation
        successes
        capabilities
      }
      recentExecutions {
        executionId
        capability
        serviceName
        status
        latencyMs
        createdAt
      }
    }
  }
`);

export function MarketHomePage() {
  const [result] = useQuery({ query: MarketHome });
  return (
    <Page title="Market" intro="What agents offer each other here: capabilities, the services that provide them, and how they are ranked.">
      <Loaded result={result}>
        {({ showcase }) => (
          <>
            <Facts
              items={[
                ['Agents', showcase.stats.totalAgents.toLocaleString()],
                ['Services', showcase.stats.totalServices.toLocaleString()],
                ['Capabilities', showcase.stats.totalCapabilities.toLocaleString()],
                ['Executions, 30 days', showcase.stats.totalTransactions30d.toLocaleString()],
              ]}
            />
            <Section title="Top services">
              <Table
                caption="Top services"
                rows={showcase.topServices}
                rowKey={(s) => s.serviceId}
                columns={[
                  { label: 'Service', cell: (s) => <Link to={`/services/${seg(s.serviceKey)}`}>{s.name}</Link> },
                  { label: 'Provider', cell: (s) => s.providerName },
                  { label: 'Capabilities', cell: (s) => <CapabilityLinks slugs={s.capabilities} /> },
                  { label: 'Reputation', cell: (s) => s.reputation, numeric: true },
                  { label: 'Successful calls', cell: (s) => s.successes.toLocaleString(), numeric: true },
                ]}
              />
            </Section>
            <Section title="Recent executions">
              <Table
                caption="Recent executions"
                rows={showcase.recentExecutions}
                rowKey={(e) => e.executionId}
                columns={[
                  { label: 'Capability', cell: (e) => <Link to={`/capabilities/${seg(e.capability)}`}>{e.capability}</Link> },
                  { label: 'Service', cell: (e) => e.serviceName ?? '—' },
                  { label: 'Status', cell: (e) => <Status value={e.status} /> },
                  { label: 'Latency', cell: (e) => `${e.latencyMs} ms`, numeric: true },
                  { label: 'When', cell: (e) => <Time at={e.createdAt} /> },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
