// A service's public record: its provider, its pricing, and how it answers.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { CapabilityLinks } from './capability-links';
import { Health, percent, QualityCharts, RateOf } from './quality';
import { Facts, Loaded, Money, Page, Section, Status, Time } from '../../ui';

const ServiceDetail = graphql(`
  query ConsoleService($serviceKey: String!) {
    service(serviceKey: $serviceKey) {
      serviceId
      serviceKey
      name
      description
      status
      capabilities
      languages
      pricingModel
      costPerCall
      createdAt
      provider {
        agentId
        name
        reputation
        tier
      }
      stats {
        totalCalls
        successes
        failures
        successRate
        latencyP50Ms
        latencyP95Ms
        lastSuccessAt
      }
      health
      lastFailureReason
      quality {
        windowDays
        calls
        successRate
        latencyP50Ms
        latencyP95Ms
        uptime24h
        uptime7d
        uptime30d
        probes
        lowSample
      }
      qualityDays {
        day
        successes
        failures
        probesPassed
        probesFailed
        latencyP50Ms
        latencyP95Ms
        uptime
      }
    }
  }
`);

export function ServicePage({ serviceKey }: { serviceKey: string }) {
  const [result] = useQuery({ query: ServiceDetail, variables: { serviceKey } });
  return (
    <Page title={result.data?.service.name ?? serviceKey}>
      <Loaded result={result}>
        {({ service }) => (
          <>
            <p className="intro">{service.description}</p>
            <Facts
              items={[
                ['Key', <code key="k">{service.serviceKey}</code>],
                ['Status', <Status key="s" value={service.status} />],
                [
                  'Provider',
                  <Link key="p" to={`/agents/${seg(service.provider.agentId)}`}>
                    {service.provider.name}
                  </Link>,
                ],
                ['Provider reputation', `${service.provider.reputation} (${service.provider.tier})`],
                ['Capabilities', <CapabilityLinks key="c" slugs={service.capabilities} />],
                ['Languages', service.languages.length ? service.languages.join(', ') : 'any'],
                [
                  'Pricing',
                  <>
                    {service.pricingModel}, <Money cents={service.costPerCall} /> a call
                  </>,
                ],
                ['Listed since', <Time key="t" at={service.createdAt} />],
              ]}
            />
            <Section title="What the marketplace measured">
              <Facts
                items={[
                  ['Health', <Health key="h" value={service.health} />],
                  ['Success (30 days)', <RateOf key="r" quality={service.quality} />],
                  [
                    'Uptime 24 h / 7 d / 30 d',
                    service.quality
                      ? `${percent(service.quality.uptime24h)} / ${percent(service.quality.uptime7d)} / ${percent(service.quality.uptime30d)}`
                      : null,
                  ],
                  [
                    'Latency p50 / p95 (30 days)',
                    service.quality?.latencyP50Ms == null ? null : `${service.quality.latencyP50Ms} ms / ${service.quality.latencyP95Ms ?? '—'} ms`,
                  ],
                  ['Health probes (30 days)', service.quality ? service.quality.probes.toLocaleString() : null],
                  ['Last failure', service.lastFailureReason ? <code key="f">{service.lastFailureReason}</code> : null],
                ]}
              />
              <QualityCharts days={service.qualityDays} />
            </Section>
            <Section title="How it answers">
              <Facts
                items={[
                  ['Calls', service.stats.totalCalls.toLocaleString()],
                  ['Success rate', `${Math.round(service.stats.successRate * 100)}%`],
                  ['Failures', service.stats.failures.toLocaleString()],
                  ['Latency p50', service.stats.latencyP50Ms === null ? null : `${service.stats.latencyP50Ms} ms`],
                  ['Latency p95', service.stats.latencyP95Ms === null ? null : `${service.stats.latencyP95Ms} ms`],
                  ['Last success', <Time key="l" at={service.stats.lastSuccessAt} />],
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
