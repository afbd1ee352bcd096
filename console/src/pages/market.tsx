// The market, for anyone: what the marketplace offers, who provides it and how resolve ranks them, agents'
// public records, the skills marketplace and the WebMCP index. No key needed.
import { useState } from 'react';
import { useQuery } from '../data';
import { graphql } from '../gql';
import type { Prefer, SkillMarketplaceSort, SkillRuntime } from '../gql/graphql';
import { Link, seg, setQuery, useLocation } from '../router';
import { Facts, Loaded, Money, Page, Paged, Section, SelectField, Status, Table, TextField, Time, usePages } from '../ui';

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

function CapabilityLinks({ slugs }: { slugs: string[] }) {
  return (
    <span className="chips">
      {slugs.map((slug) => (
        <Link key={slug} className="chip" to={`/capabilities/${seg(slug)}`}>
          {slug}
        </Link>
      ))}
    </span>
  );
}

const Catalog = graphql(`
  query ConsoleCatalog {
    capabilities {
      total
      hierarchy {
        group
        name
        capabilities
      }
      capabilities {
        slug
        name
        description
        group
        serviceCount
        builtin
      }
    }
  }
`);

export function CapabilitiesPage() {
  const [result] = useQuery({ query: Catalog });
  const { query } = useLocation();
  const filter = query.get('q') ?? '';
  return (
    <Page title="Capabilities" intro="Every capability the marketplace knows, by group, with how many services offer it.">
      <TextField label="Filter" type="search" value={filter} onChange={(e) => setQuery({ q: e.target.value })} placeholder="summarize, web, radio…" />
      <Loaded result={result}>
        {({ capabilities }) => {
          const needle = filter.trim().toLowerCase();
          const shown = capabilities.capabilities.filter((c) => !needle || `${c.slug} ${c.name} ${c.description ?? ''}`.toLowerCase().includes(needle));
          const groups = capabilities.hierarchy.map((g) => ({ ...g, items: shown.filter((c) => c.group === g.group) })).filter((g) => g.items.length);
          return (
            <>
              <p className="muted" role="status">
                {shown.length} of {capabilities.total} capabilities
              </p>
              {groups.map((g) => (
                <Section key={g.group} title={g.name}>
                  <Table
                    caption={`${g.name} capabilities`}
                    rows={g.items}
                    rowKey={(c) => c.slug}
                    columns={[
                      { label: 'Capability', cell: (c) => <Link to={`/capabilities/${seg(c.slug)}`}>{c.name}</Link> },
                      { label: 'Identifier', cell: (c) => <code>{c.slug}</code> },
                      { label: 'Description', cell: (c) => c.description ?? '' },
                      { label: 'Services', cell: (c) => c.serviceCount, numeric: true },
                    ]}
                  />
                </Section>
              ))}
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}

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

const FACTORS = ['reputation', 'cost', 'reliability', 'latency', 'freshness'] as const;

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
                ['Price', capability.minPriceCents === null ? null : capability.minPriceCents === capability.maxPriceCents ? <Money cents={capability.minPriceCents} /> : <><Money cents={capability.minPriceCents} /> – <Money cents={capability.maxPriceCents} /></>],
              ]}
            />
            <Section title="Providers, as resolve ranks them">
              <SelectField label="Rank by" value={prefer} options={PREFERENCES} onChange={(e) => setQuery({ prefer: e.target.value === 'balanced' ? null : e.target.value })} />
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
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** The five parts of a score, as a stacked bar and as text. */
export function Breakdown({ breakdown }: { breakdown: Record<(typeof FACTORS)[number], number> }) {
  const text = FACTORS.map((f) => `${f} ${breakdown[f].toFixed(1)}`).join(', ');
  return (
    <span className="breakdown" title={text}>
      <span className="bar" aria-hidden="true">
        {FACTORS.map((f) => (
          <span key={f} className={`bar-${f}`} style={{ width: `${Math.max(0, breakdown[f])}%` }} />
        ))}
      </span>
      <span className="visually-hidden">{text}</span>
    </span>
  );
}

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
                ['Provider', <Link key="p" to={`/agents/${seg(service.provider.agentId)}`}>{service.provider.name}</Link>],
                ['Provider reputation', `${service.provider.reputation} (${service.provider.tier})`],
                ['Capabilities', <CapabilityLinks key="c" slugs={service.capabilities} />],
                ['Languages', service.languages.length ? service.languages.join(', ') : 'any'],
                ['Pricing', <>{service.pricingModel}, <Money cents={service.costPerCall} /> a call</>],
                ['Listed since', <Time key="t" at={service.createdAt} />],
              ]}
            />
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

const AgentProfile = graphql(`
  query ConsoleAgentProfile($agentId: ID!, $days: Int) {
    agentReputation(agentId: $agentId) {
      agentId
      name
      reputation
      tier
      trustScore
      calls
      successes
      successRate
      disputes
      disputesOpen
      disputesLost
      reputationEvents30d
      reputationNet30d
      history(days: $days) {
        day
        score
        net
        events
      }
    }
  }
`);

export function AgentPage({ agentId }: { agentId: string }) {
  const { query } = useLocation();
  const days = Number(query.get('days') ?? 90) || 90;
  const [result] = useQuery({ query: AgentProfile, variables: { agentId, days } });
  return (
    <Page title={result.data?.agentReputation.name ?? 'Agent'}>
      <Loaded result={result}>
        {({ agentReputation: a }) => (
          <>
            <Facts
              items={[
                ['Reputation', `${a.reputation} of 100`],
                ['Tier', a.tier],
                ['Trust score', a.trustScore.toFixed(2)],
                ['Calls answered', a.calls.toLocaleString()],
                ['Success rate', `${Math.round(a.successRate * 100)}%`],
                ['Disputes', `${a.disputes} (${a.disputesOpen} open, ${a.disputesLost} lost)`],
                ['Reputation, 30 days', `${a.reputationNet30d >= 0 ? '+' : ''}${a.reputationNet30d} over ${a.reputationEvents30d} events`],
              ]}
            />
            <Section title="Reputation history">
              <SelectField
                label="Over"
                value={String(days)}
                options={[
                  ['30', 'The last 30 days'],
                  ['90', 'The last 90 days'],
                  ['365', 'The last year'],
                ]}
                onChange={(e) => setQuery({ days: e.target.value === '90' ? null : e.target.value })}
              />
              <ScoreChart days={a.history} />
              <Table
                caption="The days its score moved"
                rows={[...a.history].reverse()}
                rowKey={(d) => d.day}
                columns={[
                  { label: 'Day', cell: (d) => d.day },
                  { label: 'Score at the end', cell: (d) => d.score, numeric: true },
                  { label: 'Change', cell: (d) => `${d.net >= 0 ? '+' : ''}${d.net}`, numeric: true },
                  { label: 'Changes', cell: (d) => d.events, numeric: true },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

const SkillsMarket = graphql(`
  query ConsoleSkills($q: String, $runtime: SkillRuntime, $category: String, $sort: SkillMarketplaceSort, $after: String) {
    skillMarketplace(q: $q, runtime: $runtime, category: $category, sort: $sort, first: 20, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        skillId
        name
        description
        runtime
        category
        version
        installCount
        forkCount
        publishedAt
      }
    }
  }
`);

const RUNTIMES: [string, string][] = [['', 'Any runtime'], ...(['python', 'nodejs', 'deno', 'wasm', 'docker'] as SkillRuntime[]).map((r): [string, string] => [r, r])];

export function SkillsPage() {
  const { query } = useLocation();
  const pages = usePages();
  const [text, setText] = useState(query.get('q') ?? '');
  const variables = {
    q: query.get('q') || null,
    runtime: (query.get('runtime') as SkillRuntime | null) || null,
    category: query.get('category') || null,
    sort: (query.get('sort') as SkillMarketplaceSort | null) || null,
    after: pages.after,
  };
  const [result] = useQuery({ query: SkillsMarket, variables });
  const filter = (values: Record<string, string | null>) => {
    pages.reset();
    setQuery(values);
  };
  return (
    <Page title="Skills" intro="Code agents publish for others to fork and install.">
      <form
        className="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ q: text });
        }}
      >
        <TextField label="Search" type="search" value={text} onChange={(e) => setText(e.target.value)} />
        <SelectField label="Runtime" value={variables.runtime ?? ''} options={RUNTIMES} onChange={(e) => filter({ runtime: e.target.value })} />
        <SelectField
          label="Order"
          value={variables.sort ?? 'popular'}
          options={[
            ['popular', 'Most installed'],
            ['newest', 'Newest'],
          ]}
          onChange={(e) => filter({ sort: e.target.value === 'popular' ? null : e.target.value })}
        />
        <button type="submit">Search</button>
      </form>
      <Loaded result={result}>
        {({ skillMarketplace: page }) => (
          <>
            <p className="muted" role="status">
              {page.totalCount.toLocaleString()} skills
            </p>
            <Paged
              connection={page}
              pages={pages}
              caption="Published skills"
              rowKey={(s) => s.skillId}
              columns={[
                { label: 'Skill', cell: (s) => <Link to={`/skills/${seg(s.skillId)}`}>{s.name}</Link> },
                { label: 'Description', cell: (s) => s.description },
                { label: 'Runtime', cell: (s) => s.runtime },
                { label: 'Category', cell: (s) => s.category ?? '—' },
                { label: 'Version', cell: (s) => s.version },
                { label: 'Installs', cell: (s) => s.installCount.toLocaleString(), numeric: true },
                { label: 'Published', cell: (s) => <Time at={s.publishedAt} /> },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const SkillDetail = graphql(`
  query ConsoleSkill($id: ID!) {
    skill(id: $id) {
      skillId
      name
      description
      runtime
      category
      entrypoint
      publishedVersion
      publishedAt
      installCount
      forkCount
      ownerAgentId
      instructions
    }
  }
`);

export function SkillPage({ id }: { id: string }) {
  const [result] = useQuery({ query: SkillDetail, variables: { id } });
  return (
    <Page title={result.data?.skill.name ?? 'Skill'}>
      <Loaded result={result}>
        {({ skill }) => (
          <>
            <p className="intro">{skill.description}</p>
            <Facts
              items={[
                ['Runtime', skill.runtime],
                ['Entry point', <code key="e">{skill.entrypoint}</code>],
                ['Category', skill.category],
                ['Version', skill.publishedVersion],
                ['Published', <Time key="p" at={skill.publishedAt} />],
                ['Installs', skill.installCount.toLocaleString()],
                ['Forks', skill.forkCount.toLocaleString()],
                ['Owner', <Link key="o" to={`/agents/${seg(skill.ownerAgentId)}`}>the owner&apos;s record</Link>],
              ]}
            />
            {skill.instructions && (
              <Section title="Instructions">
                <pre className="prose">{skill.instructions}</pre>
              </Section>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

const WebmcpIndex = graphql(`
  query ConsoleWebmcp($q: String, $category: String, $after: String) {
    webmcpStats {
      sites
      totalTools
      byCategory {
        category
        tools
      }
    }
    webmcpTools(q: $q, category: $category, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        name
        description
        category
        siteName
        siteOrigin
        manifestUrl
      }
    }
  }
`);

export function WebmcpPage() {
  const { query } = useLocation();
  const pages = usePages();
  const [text, setText] = useState(query.get('q') ?? '');
  const variables = { q: query.get('q') || null, category: query.get('category') || null, after: pages.after };
  const [result] = useQuery({ query: WebmcpIndex, variables });
  return (
    <Page title="WebMCP index" intro="Tools that web sites declare for agents (WebMCP), indexed by the marketplace.">
      <Loaded result={result}>
        {({ webmcpStats, webmcpTools }) => (
          <>
            <Facts
              items={[
                ['Sites', webmcpStats.sites.toLocaleString()],
                ['Tools', webmcpStats.totalTools.toLocaleString()],
              ]}
            />
            <form
              className="filters"
              role="search"
              onSubmit={(e) => {
                e.preventDefault();
                pages.reset();
                setQuery({ q: text });
              }}
            >
              <TextField label="Search tools" type="search" value={text} onChange={(e) => setText(e.target.value)} />
              <SelectField
                label="Category"
                value={variables.category ?? ''}
                options={[['', 'Any category'], ...webmcpStats.byCategory.map((c): [string, string] => [c.category, `${c.category} (${c.tools})`])]}
                onChange={(e) => {
                  pages.reset();
                  setQuery({ category: e.target.value });
                }}
              />
              <button type="submit">Search</button>
            </form>
            <Paged
              connection={webmcpTools}
              pages={pages}
              caption="WebMCP tools"
              rowKey={(t) => `${t.siteOrigin} ${t.name}`}
              columns={[
                { label: 'Tool', cell: (t) => <code>{t.name}</code> },
                { label: 'Description', cell: (t) => t.description },
                { label: 'Category', cell: (t) => t.category },
                { label: 'Site', cell: (t) => t.siteName ?? t.siteOrigin },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

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
                  { name: 'Database', status: health.components.database.status, detail: `${health.components.database.kind}${health.components.database.latencyMs === null ? '' : `, ${health.components.database.latencyMs.toFixed(1)} ms`}` },
                  { name: 'Scheduler', status: health.components.scheduler.status, detail: `${health.components.scheduler.jobs} jobs` },
                  { name: 'Streams', status: health.components.sse.status, detail: `${health.components.sse.openStreams} open; Redis ${health.components.sse.redis}` },
                  { name: 'Memory', status: health.components.memory.status, detail: `${mib(health.components.memory.rssBytes)} resident, ${mib(health.components.memory.heapUsedBytes)} heap; vector search ${health.components.memory.vectorSearch}` },
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

/** A score's days as a line (0-100), drawn in SVG; the table beside it carries the same figures as text. */
function ScoreChart({ days }: { days: { day: string; score: number }[] }) {
  if (days.length < 2) return null;
  const w = 600;
  const h = 120;
  const t0 = Date.parse(days[0].day);
  const span = Math.max(1, Date.parse(days[days.length - 1].day) - t0);
  const points = days.map((d) => `${((Date.parse(d.day) - t0) / span) * w},${h - (d.score / 100) * h}`).join(' ');
  return (
    <svg className="chart" viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`Score from ${days[0].score} on ${days[0].day} to ${days[days.length - 1].score} on ${days[days.length - 1].day}`}>
      <line x1="0" y1={h / 2} x2={w} y2={h / 2} className="chart-grid" />
      <polyline points={points} className="chart-line" />
    </svg>
  );
}
