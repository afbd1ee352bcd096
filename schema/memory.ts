// Memory stores: the stores an agent owns or may reach, their entries and versions, and search.
import { RRF_K } from '../src/domain/memory/hybrid';
import { createStore, deleteStore, getStore, listPublicStores, listStores, updateStore } from '../src/domain/memory/stores';
import {
  deleteEntry,
  type EntryRow,
  entryVersions,
  getEntry,
  listEntries,
  VERSIONS_KEPT,
  writeEntries,
  type WrittenEntry as WrittenEntryRow,
} from '../src/domain/memory/entries';
import { SEARCH_DEPTH, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchEntries } from '../src/domain/memory/search';
import type { Ctx } from '../src/domain/context';
import { builder } from './builder';
import { pagedField, resolveConnection } from './paging';
import { maxLength, oneOf, range } from './json-schema';

/** Public stores are visible to anyone; others to the owner and, when shared, its sub-agents. */
async function storeVisible(store: { agentId: string; accessLevel: string }, ctx: Ctx): Promise<boolean> {
  if (store.accessLevel === 'public') return true;
  const p = await ctx.principal();
  if (p.kind !== 'agent') return false;
  return store.agentId === p.agent.id || (store.accessLevel === 'shared' && p.agent.parentId === store.agentId);
}

export const MemoryStore = builder.prismaNode('MemoryStore', {
  authScopes: storeVisible,
  description: 'A persistent memory store: key-value, vector or structured documents',
  id: { field: 'id' },
  fields: (t) => ({
    storeId: t.exposeID('id'),
    name: t.exposeString('name'),
    storeType: t.exposeString('storeType', { description: '`kv`, `vector` or `structured`' }),
    accessLevel: t.exposeString('accessLevel', { description: '`private` (owner only), `shared` (owner and its sub-agents) or `public` (anyone reads)' }),
    description: t.exposeString('description', { nullable: true }),
    ownerAgentId: t.exposeID('agentId'),
    dimensions: t.exposeInt('dimensions', { nullable: true, description: 'Vector stores: the length of every embedding' }),
    defaultTtlSeconds: t.exposeInt('defaultTtlSeconds', { nullable: true, description: 'TTL of entries written without one' }),
    vectorSearch: t.string({
      nullable: true,
      description: 'Vector stores: `pgvector` (HNSW index) or `exact` (a scan), by what the database offers',
      resolve: (s, _a, ctx) => (s.storeType === 'vector' ? ctx.services.vectorSearch : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const MemoryEntry = builder.objectRef<EntryRow>('MemoryEntry').implement({
  description: 'One version of a key of a memory store',
  fields: (t) => ({
    key: t.exposeString('key'),
    version: t.exposeInt('version', { description: '1 for the first write of the key, one more for each write after' }),
    value: t.field({ type: 'JSON', nullable: true, resolve: (e) => e.value }),
    embedding: t.floatList({ nullable: true, description: 'Vector stores, on reads of one entry', resolve: (e) => e.embedding ?? null }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the key was first written (for a version: when it was written)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    score: t.float({ nullable: true, description: 'Vector search: cosine similarity, 1 for the same direction', resolve: (e) => e.score ?? null }),
    distance: t.float({ nullable: true, description: 'Vector search: cosine distance (1 − score)', resolve: (e) => e.distance ?? null }),
    textRank: t.float({
      nullable: true,
      description: 'Vector search with `query`: full-text relevance to its words (ts_rank, normalized by length); null when none of them is in the entry',
      resolve: (e) => e.textRank ?? null,
    }),
    fusedScore: t.float({
      nullable: true,
      description: `Hybrid search (\`vector\` and \`query\`): the reciprocal rank fusion of the two rankings, the sum of 1 / (${RRF_K} + rank) over those the entry is in; results are in its order`,
      resolve: (e) => e.fusedScore ?? null,
    }),
  }),
});

const WrittenEntry = builder.objectRef<WrittenEntryRow>('WrittenMemoryEntry').implement({
  fields: (t) => ({
    key: t.exposeString('key'),
    version: t.exposeInt('version'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const WrittenEntries = builder.objectRef<{ written: number; entries: WrittenEntryRow[] }>('WrittenMemoryEntries').implement({
  fields: (t) => ({
    written: t.exposeInt('written', { description: 'How many entries this write stored' }),
    entries: t.field({ type: [WrittenEntry], resolve: (w) => w.entries }),
  }),
});

const CreateMemoryStoreInput = builder.inputType('CreateMemoryStoreInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: "Unique among the caller's stores, 1-100 characters" }),
    storeType: t.string({ required: true, description: '`kv`, `vector` or `structured`' }),
    accessLevel: t.string({ description: '`private` (default), `shared` or `public`' }),
    description: t.string(),
    dimensions: t.int({ description: 'Vector stores: embedding length, 1-2000 (else fixed by the first write)' }),
    defaultTtlSeconds: t.int({ description: 'TTL of entries written without one' }),
  }),
});

const UpdateMemoryStoreInput = builder.inputType('UpdateMemoryStoreInput', {
  fields: (t) => ({
    accessLevel: t.string({ description: '`private`, `shared` or `public`', extensions: oneOf(['private', 'shared', 'public']) }),
    description: t.string({ extensions: maxLength(1000) }),
    defaultTtlSeconds: t.int({ description: 'TTL of entries written from now on without one (null: none)', extensions: range(1, 315_360_000) }),
  }),
});

const MemoryEntryInput = builder.inputType('MemoryEntryInput', {
  fields: (t) => ({
    key: t.string({ description: 'Required: 1-512 characters' }),
    value: t.field({ type: 'JSON', description: 'Any JSON (a JSON object in structured stores)' }),
    ttlSeconds: t.int({ description: "Expires this long after the write (else the store's default; else never)" }),
    embedding: t.floatList({ description: "Vector stores: the embedding, of the store's dimensions" }),
  }),
});

const WriteMemoryEntriesInput = builder.inputType('WriteMemoryEntriesInput', {
  fields: (t) => ({ entries: t.field({ type: [MemoryEntryInput], required: true, description: "At most the tier's batch size (see Query.tiers)" }) }),
});

const MemorySearchInput = builder.inputType('MemorySearchInput', {
  fields: (t) => ({
    prefix: t.string({ description: 'kv and structured: keys starting with this', extensions: maxLength(512) }),
    query: t.string({
      description:
        'kv: case-insensitive text in the key or the value. vector: words, ranked by full-text relevance (English stemming; any word may match); with `vector`, fused with its similarity (hybrid search)',
      extensions: maxLength(200),
    }),
    filter: t.field({
      type: 'JSON',
      description:
        'structured: `{ "field.path": value }` (the document contains it) or `{ "field.path": { "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte" | "$in" | "$exists": … } }`; all must hold',
    }),
    vector: t.floatList({ description: 'vector: the query embedding; results are its nearest neighbours by cosine distance' }),
    embedding: t.floatList({ description: 'The same as `vector`, in the word entries are written with (give one)' }),
    limit: t.int({ description: "How many results, 1-100, default 10: the same as the connection's `first` (give one)", extensions: range(1, 100) }),
    topK: t.int({ description: 'The same as `limit`, in the word vector search uses (give one)', extensions: range(1, 100) }),
  }),
});

builder.queryField('memoryStore', (t) =>
  t.prismaField({
    type: 'MemoryStore',
    description: 'A store the caller owns or may reach',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => getStore(ctx, String(id)),
  }),
);

builder.queryField('memoryStores', (t) =>
  pagedField(t, MemoryStore, {
    description: "The caller's stores and its parent agent's shared stores, newest first",
    auth: 'agent',
    args: { storeType: t.arg.string({ description: 'Only stores of this type' }) },
    resolve: (ctx, args, page) => listStores(ctx, page, args.storeType),
  }),
);

builder.queryField('publicMemoryStores', (t) =>
  pagedField(t, MemoryStore, {
    description: 'Every public store, newest first (no credential needed)',
    args: { storeType: t.arg.string({ description: 'Only stores of this type' }) },
    resolve: (ctx, args, page) => listPublicStores(ctx, page, args.storeType),
  }),
);

builder.queryField('memoryEntries', (t) =>
  pagedField(t, MemoryEntry, {
    description: 'The live entries of a store (current versions), in key order',
    auth: 'agent',
    args: { storeId: t.arg.id({ required: true }), prefix: t.arg.string({ description: 'Only keys starting with this' }) },
    resolve: (ctx, args, page) => listEntries(ctx, String(args.storeId), page, args.prefix),
    maxSize: 1000,
  }),
);

builder.queryField('memoryEntry', (t) =>
  t.field({
    type: MemoryEntry,
    description: 'One entry: its current version, or an earlier version still kept',
    auth: 'agent',
    args: { storeId: t.arg.id({ required: true }), key: t.arg.string({ required: true }), version: t.arg.int() },
    resolve: (_r, { storeId, key, version }, ctx) => getEntry(ctx, String(storeId), key, version),
  }),
);

builder.queryField('memoryEntryVersions', (t) =>
  pagedField(t, MemoryEntry, {
    description: `The kept versions of a live entry (the latest ${VERSIONS_KEPT}), newest first`,
    auth: 'agent',
    args: { storeId: t.arg.id({ required: true }), key: t.arg.string({ required: true }) },
    defaultSize: VERSIONS_KEPT,
    resolve: (ctx, args, page) => entryVersions(ctx, String(args.storeId), args.key, page),
  }),
);

builder.queryField('searchMemory', (t) =>
  t.connection(
    {
      type: MemoryEntry,
      description: `Search a store by its kind: kv by prefix and text, structured by field filters, vector by nearest neighbours, words (full-text relevance) or both (hybrid). Ranked results, paged within the best ${SEARCH_DEPTH}; the page size is \`first\` (or \`last\`) or the input's \`limit\`, default ${SEARCH_LIMIT_DEFAULT}`,
      auth: 'agent',
      args: { storeId: t.arg.id({ required: true }), input: t.arg({ type: MemorySearchInput, required: true }) },
      resolve: (_r, args, ctx) => {
        // The input's limit sizes the page unless the connection's arguments do.
        const paged = [args.first, args.last, args.before].some((a) => a !== undefined && a !== null);
        return resolveConnection(args, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, (page) =>
          searchEntries(ctx, String(args.storeId), args.input, { offset: page.offset, limit: paged ? page.limit : undefined }),
        );
      },
    },
    {
      fields: (c: any) => ({
        totalCount: c.int({
          description: `Results the pages reach (at most ${SEARCH_DEPTH})`,
          resolve: (conn: { totalCount: number }) => conn.totalCount,
        }),
      }),
    },
  ),
);

builder.mutationField('createMemoryStore', (t) =>
  t.prismaField({
    type: 'MemoryStore',
    description: "Create a store (at most the tier's store count; see Query.tiers)",
    auth: 'agent',
    args: { input: t.arg({ type: CreateMemoryStoreInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => createStore(ctx, input),
  }),
);

builder.mutationField('updateMemoryStore', (t) =>
  t.prismaField({
    type: 'MemoryStore',
    description: 'The owner changes the access level, description or default TTL',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateMemoryStoreInput, required: true }) },
    resolve: (_q, _r, { id, input }, ctx) => updateStore(ctx, String(id), input),
  }),
);

const DeletedStore = builder.objectRef<{ id: string; name: string }>('DeletedMemoryStore').implement({
  fields: (t) => ({
    deleted: t.boolean({ resolve: () => true }),
    storeId: t.exposeID('id'),
    name: t.exposeString('name'),
  }),
});

builder.mutationField('deleteMemoryStore', (t) =>
  t.field({
    type: DeletedStore,
    description: 'The owner deletes a store with all its entries',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => deleteStore(ctx, String(id)),
  }),
);

builder.mutationField('writeMemoryEntries', (t) =>
  t.field({
    type: WrittenEntries,
    description: 'Write a batch of entries; each key gets its next version and earlier versions stay readable',
    auth: 'agent',
    args: { storeId: t.arg.id({ required: true }), input: t.arg({ type: WriteMemoryEntriesInput, required: true }) },
    resolve: (_r, { storeId, input }, ctx) => writeEntries(ctx, String(storeId), input),
  }),
);

const DeletedEntry = builder.objectRef<{ deleted: boolean; key: string }>('DeletedMemoryEntry').implement({
  fields: (t) => ({ deleted: t.exposeBoolean('deleted'), key: t.exposeString('key') }),
});

builder.mutationField('deleteMemoryEntry', (t) =>
  t.field({
    type: DeletedEntry,
    description: 'Delete an entry with all its versions',
    auth: 'agent',
    args: { storeId: t.arg.id({ required: true }), key: t.arg.string({ required: true }) },
    resolve: (_r, { storeId, key }, ctx) => deleteEntry(ctx, String(storeId), key),
  }),
);
