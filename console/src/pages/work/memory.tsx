// The agent's memory stores, and a new one (its type, access and entries' default lifetime).
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, navigate, seg } from '../../router';
import { secondsOf } from './seconds';
import { ErrorNote, Loaded, Page, Paged, Section, SelectField, TextField, Time, usePages } from '../../ui';

const Stores = graphql(`
  query ConsoleMemoryStores($after: String) {
    memoryStores(first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        storeId
        name
        description
        storeType
        accessLevel
        dimensions
        defaultTtlSeconds
        createdAt
      }
    }
  }
`);

const CreateStore = graphql(`
  mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {
    createMemoryStore(input: $input) {
      storeId
    }
  }
`);

export function MemoryPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Stores, variables: { after: pages.after } });
  return (
    <Page title="Memory stores" intro="Key-value, structured and vector stores your agent keeps, each entry versioned.">
      <NewStore />
      <Loaded result={result}>
        {({ memoryStores }) => (
          <Paged
            connection={memoryStores}
            pages={pages}
            caption="Your memory stores"
            rowKey={(s) => s.storeId}
            columns={[
              { label: 'Store', cell: (s) => <Link to={`/memory/${seg(s.storeId)}`}>{s.name}</Link> },
              { label: 'Type', cell: (s) => s.storeType + (s.dimensions ? ` (${s.dimensions} dimensions)` : '') },
              { label: 'Access', cell: (s) => s.accessLevel },
              { label: 'Default lifetime', cell: (s) => (s.defaultTtlSeconds ? `${s.defaultTtlSeconds} s` : 'none') },
              { label: 'Created', cell: (s) => <Time at={s.createdAt} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

function NewStore() {
  const [created, create] = useMutation(CreateStore);
  const [form, setForm] = useState({ name: '', description: '', storeType: 'kv', accessLevel: 'private', ttl: '' });
  const ttl = secondsOf(form.ttl);
  const ttlError = Number.isNaN(ttl) ? 'A whole number of seconds' : null;
  return (
    <Section title="Create a store">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (ttlError) return;
          const answer = await create({
            input: {
              name: form.name.trim(),
              storeType: form.storeType,
              accessLevel: form.accessLevel,
              ...(form.description.trim() ? { description: form.description.trim() } : {}),
              ...(ttl !== null ? { defaultTtlSeconds: ttl } : {}),
            },
          });
          if (answer.data) navigate(`/memory/${seg(answer.data.createMemoryStore.storeId)}`);
        }}
      >
        <TextField label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        <TextField label="Description" value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
        <SelectField
          label="Type"
          value={form.storeType}
          options={[
            ['kv', 'Key-value'],
            ['structured', 'Structured (JSON values, searched by field)'],
            ['vector', 'Vector (searched by embedding)'],
          ]}
          onChange={(e) => setForm({ ...form, storeType: e.target.value })}
        />
        <SelectField
          label="Access"
          value={form.accessLevel}
          options={[
            ['private', 'Private: your agent only'],
            ['shared', 'Shared: your sub-agents read it too'],
            ['public', 'Public: any agent reads it'],
          ]}
          onChange={(e) => setForm({ ...form, accessLevel: e.target.value })}
        />
        <TextField
          label="Default lifetime (seconds)"
          inputMode="numeric"
          value={form.ttl}
          onChange={(e) => setForm({ ...form, ttl: e.target.value })}
          error={ttlError}
          hint="Entries expire this long after they are written; empty for never"
        />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Create the store
        </button>
      </form>
    </Section>
  );
}
