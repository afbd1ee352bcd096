// REST routes of memory stores (spec §4.7): stores, entries in batches with versions and TTL, search.
import { bucket, from, type Route } from './route';

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };
const storeFields = /* GraphQL */ `
  fragment MemoryStoreFields on MemoryStore {
    id: storeId
    name
    storeType
    accessLevel
    description
    owner_agent_id: ownerAgentId
    dimensions
    default_ttl_seconds: defaultTtlSeconds
    vector_search: vectorSearch
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const entryFields = /* GraphQL */ `
  fragment MemoryEntryFields on MemoryEntry {
    key
    version
    value
    expires_at: expiresAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const memoryRoutes: Route[] = [
  {
    method: 'POST',
    path: '/memory/stores',
    bucket: bucket('memory_stores_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Memory',
    summary: 'Create a memory store',
    description:
      '`storeType` `kv`, `vector` or `structured`; `accessLevel` `private` (default; owner only), `shared` (owner and its sub-agents) or `public` (any agent reads; listed at /memory/stores/public). Vector stores take `dimensions` (1-2000) here or from their first write. A tier may own a limited number of stores (Newcomer 5, Contributor 20, Trusted 50, Star 200): 403 beyond. A name already used by the caller is 409.',
    errors: [403, 409],
    document: /* GraphQL */ `
      mutation CreateMemoryStore($input: CreateMemoryStoreInput!) {
        createMemoryStore(input: $input) {
          ...MemoryStoreFields
        }
      }
      ${storeFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/memory/stores',
    bucket: bucket('memory_stores_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: "The caller's stores and its parent agent's shared stores",
    document: /* GraphQL */ `
      query MemoryStores($storeType: String, $first: Int, $offset: Int) {
        memoryStores(storeType: $storeType, first: $first, offset: $offset) {
          total: totalCount
          stores: nodes {
            ...MemoryStoreFields
          }
        }
      }
      ${storeFields}
    `,
    variables: { storeType: from.query('storeType', 'kv, vector or structured'), ...page },
  },
  {
    method: 'GET',
    path: '/memory/stores/public',
    bucket: bucket('memory_stores_public', 60),
    auth: 'none',
    status: 200,
    tag: 'Memory',
    summary: 'Every public store (no credential needed)',
    document: /* GraphQL */ `
      query PublicMemoryStores($storeType: String, $first: Int, $offset: Int) {
        publicMemoryStores(storeType: $storeType, first: $first, offset: $offset) {
          total: totalCount
          stores: nodes {
            ...MemoryStoreFields
          }
        }
      }
      ${storeFields}
    `,
    variables: { storeType: from.query('storeType', 'kv, vector or structured'), ...page },
  },
  {
    method: 'GET',
    path: '/memory/stores/:id',
    bucket: bucket('memory_stores_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'A store the caller owns or may reach',
    errors: [404],
    document: /* GraphQL */ `
      query MemoryStore($id: ID!) {
        memoryStore(id: $id) {
          ...MemoryStoreFields
        }
      }
      ${storeFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'PATCH',
    path: '/memory/stores/:id',
    bucket: bucket('memory_stores_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: "Change a store's access level, description or default TTL",
    description: 'Owner only; anyone else gets 404.',
    errors: [404],
    document: /* GraphQL */ `
      mutation UpdateMemoryStore($id: ID!, $input: UpdateMemoryStoreInput!) {
        updateMemoryStore(id: $id, input: $input) {
          ...MemoryStoreFields
        }
      }
      ${storeFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'DELETE',
    path: '/memory/stores/:id',
    bucket: bucket('memory_stores_delete', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'Delete a store with all its entries',
    description: 'Owner only; anyone else gets 404.',
    errors: [404],
    document: /* GraphQL */ `
      mutation DeleteMemoryStore($id: ID!) {
        deleteMemoryStore(id: $id) {
          deleted
          id: storeId
          name
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'PUT',
    path: '/memory/stores/:id/entries',
    bucket: bucket('memory_entries_write', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'Write a batch of entries',
    description:
      "Body `{ entries: [{ key, value, ttlSeconds?, embedding? }] }`. Each key gets its next `version` (1 for a new or expired key); earlier versions stay readable (the latest 50). `ttlSeconds` (else the store's default, else never) makes the entry vanish from reads once passed. Structured stores take JSON objects; vector stores need an `embedding` of the store's dimensions. Limits by tier (entries per write / bytes of one value): Newcomer 100 / 16 KiB, Contributor 500 / 64 KiB, Trusted 1,000 / 256 KiB, Star 1,000 / 512 KiB. The owner writes, and its sub-agents when the store is `shared`; a reader of a public store gets 403.",
    errors: [403, 404],
    document: /* GraphQL */ `
      mutation WriteMemoryEntries($id: ID!, $input: WriteMemoryEntriesInput!) {
        writeMemoryEntries(storeId: $id, input: $input) {
          written
          entries {
            key
            version
            expires_at: expiresAt
            updated_at: updatedAt
          }
        }
      }
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'GET',
    path: '/memory/stores/:id/entries',
    bucket: bucket('memory_entries_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'The live entries of a store, in key order',
    errors: [404],
    document: /* GraphQL */ `
      query MemoryEntries($id: ID!, $prefix: String, $first: Int, $offset: Int) {
        memoryEntries(storeId: $id, prefix: $prefix, first: $first, offset: $offset) {
          total: totalCount
          entries: nodes {
            ...MemoryEntryFields
          }
        }
      }
      ${entryFields}
    `,
    variables: {
      id: from.path('id'),
      prefix: from.query('prefix', 'Only keys starting with this'),
      first: from.query('limit', 'Items to return, 1-1000 (default 20)'),
      offset: page.offset,
    },
  },
  {
    method: 'GET',
    path: '/memory/stores/:id/entries/:key',
    bucket: bucket('memory_entries_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'One entry, or one of its earlier versions',
    description: 'The key is URL-encoded in the path. `version` reads an earlier version while it is kept; an expired entry is 404.',
    errors: [404],
    document: /* GraphQL */ `
      query MemoryEntry($id: ID!, $key: String!, $version: Int) {
        memoryEntry(storeId: $id, key: $key, version: $version) {
          ...MemoryEntryFields
          embedding
        }
      }
      ${entryFields}
    `,
    variables: { id: from.path('id'), key: from.path('key'), version: from.query('version', 'An earlier version (default: the current one)') },
  },
  {
    method: 'GET',
    path: '/memory/stores/:id/entries/:key/versions',
    bucket: bucket('memory_entries_versions', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'Every kept version of an entry, newest first',
    errors: [404],
    document: /* GraphQL */ `
      query MemoryEntryVersions($id: ID!, $key: String!, $first: Int, $offset: Int) {
        memoryEntryVersions(storeId: $id, key: $key, first: $first, offset: $offset) {
          total: totalCount
          versions: nodes {
            ...MemoryEntryFields
          }
        }
      }
      ${entryFields}
    `,
    variables: {
      id: from.path('id'),
      key: from.path('key'),
      first: from.query('limit', 'Items to return, 1-100 (default 50: all that are kept)'),
      offset: page.offset,
    },
  },
  {
    method: 'DELETE',
    path: '/memory/stores/:id/entries/:key',
    bucket: bucket('memory_entries_delete', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'Delete an entry with all its versions',
    errors: [403, 404],
    document: /* GraphQL */ `
      mutation DeleteMemoryEntry($id: ID!, $key: String!) {
        deleteMemoryEntry(storeId: $id, key: $key) {
          deleted
          key
        }
      }
    `,
    variables: { id: from.path('id'), key: from.path('key') },
  },
  {
    method: 'POST',
    path: '/memory/stores/:id/search',
    bucket: bucket('memory_search', 60),
    auth: 'agent',
    status: 200,
    tag: 'Memory',
    summary: 'Search a store',
    description:
      'By the store\'s kind. kv: `prefix` and/or `query` (case-insensitive text in key or value). structured: `filter` `{ "field.path": value }` (the document contains it) or operators `$eq $ne $gt $gte $lt $lte $in $exists`, all of which must hold, plus `prefix`. vector: `vector` (the query embedding; `embedding`, the word entries are written with, is the same): its nearest neighbours by cosine distance, each with `score` (similarity) and `distance`; pgvector\'s HNSW index where the database has it, else an exact scan (GET /health, `memory.vector_search`). `query` (words) beside `vector` is hybrid search: the best 200 by similarity and the best 200 by full-text relevance to the words (key and string values, English stemming, any word may match) fused by reciprocal rank, best `fused_score` first, each with `text_rank` (null where no word matches); `query` alone ranks by `text_rank`. `limit` (or `top_k`) 1-100, default 10. `total`: how many results the search ranked (at most 1,000). A synonym given with a different value than its twin is 400.',
    errors: [404],
    document: /* GraphQL */ `
      query SearchMemory($id: ID!, $input: MemorySearchInput!) {
        searchMemory(storeId: $id, input: $input) {
          total: totalCount
          results: nodes {
            ...MemoryEntryFields
            score
            distance
            text_rank: textRank
            fused_score: fusedScore
          }
        }
      }
      ${entryFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
];
