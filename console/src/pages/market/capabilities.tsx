// The catalog, for anyone: every capability by group with how many services offer it, filtered by the query's `q`.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg, setQuery, useLocation } from '../../router';
import { Loaded, Page, Section, Table, TextField } from '../../ui';

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
