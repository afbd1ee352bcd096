// The WebMCP tool index: indexed tools searched by words and category, sites submitted for indexing and
// their submissions' outcome, statistics, and the marketplace's own manifest.
import * as webmcp from '../src/domain/webmcp/index-sites';
import { builder } from './builder';
import { pagedField } from './paging';
import { maxLength } from './json-schema';

const IndexedTool = builder.objectRef<webmcp.IndexedTool>('WebmcpTool').implement({
  description: "A tool of an indexed site's WebMCP manifest",
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    category: t.exposeString('category'),
    inputSchema: t.field({ type: 'JSON', description: 'JSON Schema of its input', resolve: (x) => x.inputSchema }),
    siteOrigin: t.exposeString('siteOrigin', { description: 'The site that offers it' }),
    siteName: t.exposeString('siteName', { nullable: true }),
    manifestUrl: t.exposeString('manifestUrl', { description: 'Where its manifest was read' }),
  }),
});

builder.queryField('webmcpTools', (t) =>
  pagedField(t, IndexedTool, {
    description: 'Indexed tools (no credential needed): full-text search over name and description, best match first; or every tool by site and name',
    args: {
      q: t.arg.string({ description: 'Words to find in the name or description', extensions: maxLength(200) }),
      category: t.arg.string({ description: 'Only tools of this category', extensions: maxLength(64) }),
    },
    resolve: (ctx, args, page) => webmcp.searchTools(ctx, args, page),
  }),
);

const SubmissionStateEnum = builder.enumType('WebmcpSubmissionState', { values: ['queued', 'indexed', 'failed'] as const });

const Submission = builder.objectRef<webmcp.Submission>('WebmcpSubmission').implement({
  description: 'A site submitted for indexing, and how it went',
  fields: (t) => ({
    submissionId: t.exposeID('id'),
    url: t.exposeString('url'),
    queued: t.boolean({ description: 'Waiting to be fetched', resolve: (s) => s.state === 'queued' }),
    state: t.field({ type: SubmissionStateEnum, resolve: (s) => s.state }),
    toolCount: t.exposeInt('toolCount', { nullable: true, description: 'Tools indexed (when indexed)' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed (or why the last try did, while queued for another)' }),
    siteOrigin: t.string({ nullable: true, resolve: (s) => s.site?.origin ?? null }),
    siteName: t.string({ nullable: true, resolve: (s) => s.site?.name ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const SubmitInput = builder.inputType('SubmitWebmcpSiteInput', {
  fields: (t) => ({
    url: t.string({
      required: true,
      description: "The site (its /.well-known/webmcp.json is read) or the manifest's own https URL",
      extensions: maxLength(2048),
    }),
  }),
});

builder.mutationField('submitWebmcpSite', (t) =>
  t.field({
    type: Submission,
    description: 'Queue a site for indexing (no credential needed); a site submitted again is indexed anew',
    args: { input: t.arg({ type: SubmitInput, required: true }) },
    resolve: (_r, { input }, ctx) => webmcp.submitSite(ctx, input),
  }),
);

builder.queryField('webmcpSubmission', (t) =>
  t.field({
    type: Submission,
    description: 'A submission: queued, indexed (with the count) or failed (with why)',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => webmcp.getSubmission(ctx, String(id)),
  }),
);

const CategoryCount = builder.objectRef<{ category: string; tools: number }>('WebmcpCategoryCount').implement({
  fields: (t) => ({ category: t.exposeString('category'), tools: t.exposeInt('tools') }),
});

const Stats = builder.objectRef<webmcp.IndexStats>('WebmcpStats').implement({
  fields: (t) => ({
    totalTools: t.exposeInt('totalTools'),
    sites: t.exposeInt('sites'),
    byCategory: t.field({ type: [CategoryCount], resolve: (s) => s.byCategory }),
    submissionsQueued: t.int({ description: 'Submissions waiting to be fetched', resolve: (s) => s.submissions.queued }),
    submissionsIndexed: t.int({ resolve: (s) => s.submissions.indexed }),
    submissionsFailed: t.int({ resolve: (s) => s.submissions.failed }),
  }),
});

builder.queryField('webmcpStats', (t) => t.field({ type: Stats, description: 'What the index holds', resolve: (_r, _a, ctx) => webmcp.indexStats(ctx) }));

type OwnManifest = ReturnType<typeof webmcp.ownManifest>;

const ManifestTool = builder.objectRef<OwnManifest['tools'][number]>('WebmcpManifestTool').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    inputSchema: t.field({ type: 'JSON', resolve: (x) => x.inputSchema }),
  }),
});

const Manifest = builder.objectRef<OwnManifest>('WebmcpManifest').implement({
  description: "The marketplace's WebMCP manifest: the tools of the spec's tool manifest with their inputs",
  fields: (t) => ({
    version: t.exposeString('version'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    url: t.exposeString('url'),
    tools: t.field({ type: [ManifestTool], resolve: (m) => m.tools }),
  }),
});

builder.queryField('webmcpManifest', (t) => t.field({ type: Manifest, resolve: (_r, _a, ctx) => webmcp.ownManifest(ctx) }));
