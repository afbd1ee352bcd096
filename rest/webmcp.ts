// REST routes of the WebMCP tool index (spec §4.14): search, submit a site, a submission's outcome,
// statistics, and the marketplace's manifest (also at /.well-known/webmcp.json).
import { bucket, from, type Route } from './route';

const submissionFields = /* GraphQL */ `
  fragment WebmcpSubmissionFields on WebmcpSubmission {
    submission_id: submissionId
    url
    queued
    state
    tool_count: toolCount
    error
    site_origin: siteOrigin
    site_name: siteName
    created_at: createdAt
    finished_at: finishedAt
  }
`;

export const webmcpRoutes: Route[] = [
  {
    method: 'GET',
    path: '/webmcp/tools',
    bucket: bucket('webmcp_tools', 60),
    auth: 'none',
    status: 200,
    tag: 'WebMCP',
    summary: 'Search the tool index',
    description:
      '`q`: every word must appear in the name or description (a name like `searchCapabilities` also counts as its words); best match first. Without `q`, every tool by site and name. `category` narrows to one category.',
    document: /* GraphQL */ `
      query WebmcpTools($q: String, $category: String, $first: Int, $offset: Int) {
        webmcpTools(q: $q, category: $category, first: $first, offset: $offset) {
          total: totalCount
          tools: nodes {
            name
            description
            category
            input_schema: inputSchema
            site_origin: siteOrigin
            site_name: siteName
            manifest_url: manifestUrl
          }
        }
      }
    `,
    variables: {
      q: from.query('q', 'Words to find'),
      category: from.query('category', 'Only this category'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'POST',
    path: '/webmcp/submit',
    bucket: bucket('webmcp_submit', 30),
    auth: 'none',
    status: 202,
    tag: 'WebMCP',
    summary: 'Submit a site for indexing',
    description:
      "`url`: an https site (its `/.well-known/webmcp.json` is read) or a manifest's own URL (a path ending in `.json`). A background job fetches it through the outbound guard (no private, loopback or link-local addresses), checks the manifest (`version`, `tools` of 1-500, each with `name`, `description`, an object `inputSchema`, optional `category`), and indexes its tools, replacing what the site had. Follow it at `GET /webmcp/submissions/{submission_id}`. A timeout or a 5xx is tried again (three tries in all); anything else fails at once with the reason.",
    document: /* GraphQL */ `
      mutation SubmitWebmcpSite($input: SubmitWebmcpSiteInput!) {
        submitWebmcpSite(input: $input) {
          ...WebmcpSubmissionFields
        }
      }
      ${submissionFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/webmcp/submissions/:id',
    bucket: bucket('webmcp_submission', 60),
    auth: 'none',
    status: 200,
    tag: 'WebMCP',
    summary: 'A submission: queued, indexed or failed',
    errors: [404],
    document: /* GraphQL */ `
      query WebmcpSubmission($id: ID!) {
        webmcpSubmission(id: $id) {
          ...WebmcpSubmissionFields
        }
      }
      ${submissionFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/webmcp/stats',
    bucket: bucket('webmcp_stats', 60),
    auth: 'none',
    status: 200,
    tag: 'WebMCP',
    summary: 'What the tool index holds',
    document: /* GraphQL */ `
      query WebmcpStats {
        webmcpStats {
          total_tools: totalTools
          sites
          by_category: byCategory {
            category
            tools
          }
          submissions_queued: submissionsQueued
          submissions_indexed: submissionsIndexed
          submissions_failed: submissionsFailed
        }
      }
    `,
  },
  {
    method: 'GET',
    path: ['/webmcp/manifest', '/.well-known/webmcp.json'],
    bucket: bucket('webmcp_manifest', 60),
    auth: 'none',
    status: 200,
    tag: 'WebMCP',
    summary: "The marketplace's WebMCP manifest",
    description: "Version 1.0.0 and the eight tools of the spec's tool manifest with their inputs; also served at the site root as `/.well-known/webmcp.json`.",
    document: /* GraphQL */ `
      query WebmcpManifest {
        webmcpManifest {
          version
          name
          description
          url
          tools {
            name
            description
            inputSchema
          }
        }
      }
    `,
  },
];
