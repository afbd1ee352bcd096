// The WebMCP index, for anyone: the tools web sites declare for agents, searched and filtered by category.
import { useState } from 'react';
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { setQuery, useLocation } from '../../router';
import { Facts, Loaded, Page, Paged, SelectField, TextField, usePages } from '../../ui';

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
