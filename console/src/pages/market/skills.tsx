// The skills marketplace, for anyone: searched, filtered by runtime and ordered, the filters in the query string.
import { useState } from 'react';
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import type { SkillMarketplaceSort, SkillRuntime } from '../../gql/graphql';
import { Link, seg, setQuery, useLocation } from '../../router';
import { Loaded, Page, Paged, SelectField, TextField, Time, usePages } from '../../ui';

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

const RUNTIMES: [string, string][] = [
  ['', 'Any runtime'],
  ...(['python', 'nodejs', 'deno', 'wasm', 'docker'] as SkillRuntime[]).map((r): [string, string] => [r, r]),
];

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
