// A memory store's entries, by key prefix: written, edited (a write makes the next version) and deleted.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { secondsOf } from './seconds';
import { ConfirmButton, ErrorNote, Loaded, Page, Paged, parseJson, Section, TextArea, TextField, Time, useFilter, usePages } from '../../ui';

const Entries = graphql(`
  query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {
    memoryStore(id: $storeId) {
      storeId
      name
      storeType
      accessLevel
    }
    memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        key
        version
        value
        updatedAt
        expiresAt
      }
    }
  }
`);

const WriteEntry = graphql(`
  mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {
    writeMemoryEntries(storeId: $storeId, input: $input) {
      written
    }
  }
`);

const DeleteEntry = graphql(`
  mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {
    deleteMemoryEntry(storeId: $storeId, key: $key) {
      deleted
    }
  }
`);

const emptyEntry = { key: '', value: '', ttl: '' };

export function MemoryStorePage({ id }: { id: string }) {
  const pages = usePages();
  const [prefix, setPrefix] = useFilter(pages);
  const [result, refetch] = useQuery({ query: Entries, variables: { storeId: id, prefix: prefix || null, after: pages.after } });
  const [written, write] = useMutation(WriteEntry);
  const [deleted, remove] = useMutation(DeleteEntry);
  const [entry, setEntry] = useState(emptyEntry);
  const [valueError, setValueError] = useState<string | null>(null);
  const ttl = secondsOf(entry.ttl);
  const ttlError = Number.isNaN(ttl) ? 'A whole number of seconds' : null;
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Page title={result.data?.memoryStore.name ?? 'Memory store'}>
      <Section title="Write an entry">
        <form
          className="form"
          onSubmit={async (e) => {
            e.preventDefault();
            const value = parseJson('Value', entry.value);
            setValueError(value.ok ? null : value.error);
            if (!value.ok || ttlError) return;
            const answer = await write({
              storeId: id,
              input: { entries: [{ key: entry.key.trim(), value: value.value, ...(ttl !== null ? { ttlSeconds: ttl } : {}) }] },
            });
            if (answer.data) {
              setEntry(emptyEntry);
              reload();
            }
          }}
        >
          <TextField
            label="Key"
            value={entry.key}
            onChange={(e) => setEntry({ ...entry, key: e.target.value })}
            required
            hint="Writing an existing key makes its next version"
          />
          <TextArea
            label="Value (JSON)"
            rows={4}
            spellCheck={false}
            value={entry.value}
            onChange={(e) => setEntry({ ...entry, value: e.target.value })}
            error={valueError}
            required
          />
          <TextField
            label="Lifetime (seconds)"
            inputMode="numeric"
            value={entry.ttl}
            onChange={(e) => setEntry({ ...entry, ttl: e.target.value })}
            error={ttlError}
            hint="Empty for the store's default"
          />
          {written.error && <ErrorNote error={written.error} />}
          <button type="submit" disabled={written.fetching}>
            Write
          </button>
        </form>
      </Section>
      <TextField label="Keys starting with" type="search" value={prefix} onChange={(e) => setPrefix(e.target.value)} />
      {deleted.error && <ErrorNote error={deleted.error} />}
      <Loaded result={result}>
        {({ memoryStore, memoryEntries }) => (
          <>
            <p className="muted" role="status">
              {memoryEntries.totalCount.toLocaleString()} entries in this {memoryStore.storeType} store ({memoryStore.accessLevel})
            </p>
            <Paged
              connection={memoryEntries}
              pages={pages}
              caption="Entries"
              rowKey={(e) => e.key}
              columns={[
                { label: 'Key', cell: (e) => <code>{e.key}</code> },
                { label: 'Version', cell: (e) => e.version, numeric: true },
                { label: 'Value', cell: (e) => <code className="clip">{JSON.stringify(e.value)}</code> },
                { label: 'Updated', cell: (e) => <Time at={e.updatedAt} /> },
                { label: 'Expires', cell: (e) => <Time at={e.expiresAt} /> },
                {
                  label: 'Actions',
                  cell: (e) => (
                    <span className="actions">
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Edit ${e.key}`}
                        onClick={() => {
                          setEntry({ key: e.key, value: JSON.stringify(e.value, null, 2), ttl: '' });
                          setValueError(null);
                          window.scrollTo({ top: 0 });
                        }}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        question={`Delete ${e.key}, every version of it?`}
                        label={`Delete ${e.key}`}
                        action={async () => {
                          await remove({ storeId: id, key: e.key });
                          reload();
                        }}
                      >
                        Delete
                      </ConfirmButton>
                    </span>
                  ),
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
