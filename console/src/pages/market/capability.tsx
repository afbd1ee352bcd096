// One capability, for anyone: its record, and its providers as resolve ranks them by the preference chosen.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import type { Prefer } from '../../gql/graphql';
import { Link, seg, setQuery, useLocation } from '../../router';
import { Breakdown, Facts, Loaded, Money, Page, Section, SelectField, Table } from '../../ui';
import { Health, RateOf, UptimeMeter } from './quality';
import { TryIt } from './try-it';

const CapabilityDetail = graphql(`
  query ConsoleCapability($slug: String!, $prefer: Prefer, $limit: Int) {
    capability(slug: $slug) {
      slug
      name
      description
      category
      parent
      providers
      bestReputation
      minPriceCents
      maxPriceCents
      marketplace {
        inputSchema
      }
    }
    providers(capability: $slug, prefer: $prefer, limit: $limit) {
      total
      totalIsEstimate
      resolutionTimeMs
      matches {
        serviceId
        serviceKey
        name
        providerId
        providerName
        reputation
        costCents
        pricingModel
        latencyP50Ms
        successRate
        score
        firstParty
        health
        quality {
          calls
          successRate
          uptime24h
          lowSample
        }
        scoreBreakdown {
          reputation
          cost
          reliability
          latency
          freshness
        }
      }
    }
  }
`);

const PREFERENCES: [Prefer, string][] = [
  ['balanced', 'Balanced'],
  ['reputation', 'Reputation first'],
  ['cost', 'Cost first'],
  ['latency', 'Latency first'],
];

export function CapabilityPage({ slug }: { slug: string }) {
  const { query } = useLocation();
  const prefer = (query.get('prefer') as Prefer | null) ?? 'balanced';
  const [result] = useQuery({ query: CapabilityDetail, variables: { slug, prefer, limit: 20 } });
  return (
    <Page title={result.data?.capability.name ?? slug}>
      <Loaded result={result}>
        {({ capability, providers }) => (
          <>
            {capability.description && <p className="intro">{capability.description}</p>}
            <Facts
              items={[
                ['Identifier', <code key="slug">{capability.slug}</code>],
                ['Group', capability.category],
                ['Refines', capability.parent ? <Link to={`/capabilities/${seg(capability.parent)}`}>{capability.parent}</Link> : null],
                ['Providers', capability.providers],
                ['Best reputation', capability.bestReputation],
                [
                  'Price',
                  capability.minPriceCents === null ? null : capability.minPriceCents === capability.maxPriceCents ? (
                    <Money cents={capability.minPriceCents} />
                  ) : (
                    <>
                      <Money cents={capability.minPriceCents} /> – <Money cents={capability.maxPriceCents} />
                    </>
                  ),
                ],
              ]}
            />
            <Section title="Providers, as resolve ranks them">
              <SelectField
                label="Rank by"
                value={prefer}
                options={PREFERENCES}
                onChange={(e) => setQuery({ prefer: e.target.value === 'balanced' ? null : e.target.value })}
              />
              <p className="muted" role="status">
                {providers.totalIsEstimate ? 'About ' : ''}
                {providers.total} {providers.total === 1 ? 'provider' : 'providers'}; ranked in {providers.resolutionTimeMs.toFixed(1)} ms
              </p>
              <Table
                caption={`Providers of ${capability.slug}, ranked`}
                rows={providers.matches}
                rowKey={(m) => m.serviceKey}
                columns={[
                  { label: '#', cell: (m) => providers.matches.indexOf(m) + 1, numeric: true },
                  { label: 'Service', cell: (m) => (m.firstParty ? m.name : <Link to={`/services/${seg(m.serviceKey)}`}>{m.name}</Link>) },
                  { label: 'Provider', cell: (m) => (m.providerId ? <Link to={`/agents/${seg(m.providerId)}`}>{m.providerName}</Link> : m.providerName) },
                  { label: 'Score', cell: (m) => (m.score === null ? '—' : m.score.toFixed(1)), numeric: true },
                  { label: 'Why', cell: (m) => <Breakdown breakdown={m.scoreBreakdown} /> },
                  { label: 'Price', cell: (m) => <Money cents={m.costCents} />, numeric: true },
                  { label: 'Reputation', cell: (m) => m.reputation, numeric: true },
                  { label: 'Success', cell: (m) => (m.successRate === null ? '—' : `${Math.round(m.successRate * 100)}%`), numeric: true },
                  { label: 'Latency p50', cell: (m) => (m.latencyP50Ms === null ? '—' : `${m.latencyP50Ms} ms`), numeric: true },
                  { label: 'Health', cell: (m) => <Health value={m.health} /> },
                  { label: 'Measured (30 days)', cell: (m) => <RateOf quality={m.quality} /> },
                  { label: 'Uptime 24 h', cell: (m) => <UptimeMeter share={m.quality?.uptime24h ?? null} />, numeric: true },
                ]}
              />
            </Section>
            <TryIt capability={capability.slug} inputSchema={capability.marketplace?.inputSchema ?? null} />
          </>
        )}
      </Loaded>
    </Page>
  );
}
