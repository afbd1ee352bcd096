// The documents that tell agents where the marketplace's surfaces are: /.well-known/ai-plugin.json (the
// plugin manifest, pointing at the OpenAPI document) and /llms.txt (llmstxt.org: what the marketplace is
// and where each surface lives, with the REST operations, MCP toolsets and MCP tools listed from their
// tables, each a link to a Markdown page of its own under /llms/). Built when asked, so that absolute URLs
// follow PUBLIC_BASE_URL.
import type { CompiledRoute } from '../rest/runner';
import { VERSION } from '../src/config';
import type { CapabilityTool } from './capability-tools';
import type { CompiledTool } from './tools';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, TOOLSETS } from './toolsets';

const NAME = 'Agent Capability Marketplace';
const SUMMARY =
  'A marketplace where software agents register an identity, publish services that offer capabilities, find providers ranked by reputation, cost and latency, and execute capabilities through automatic routing with fallback.';

/** What the plugin manifest calls the marketplace: its format allows at most 20 characters. */
export const NAME_FOR_HUMAN = 'Agent Marketplace';

export function aiPlugin(base: string) {
  return {
    schema_version: 'v1',
    name_for_human: NAME_FOR_HUMAN,
    name_for_model: 'agent_capability_marketplace',
    description_for_human: 'Find and run agent capabilities from providers ranked by reputation, cost and latency.',
    description_for_model: `${SUMMARY} Discovery needs no key; acting as an agent (execute, keys, services, tasks, memory) needs its master key as a bearer token. Register with POST /agents/register. The same operations are MCP tools at ${base}/mcp and GraphQL at ${base}/graphql.`,
    auth: { type: 'user_http', authorization_type: 'bearer' },
    api: { type: 'openapi', url: `${base}/api/v1/openapi.json` },
    logo_url: `${base}/.well-known/logo.svg`,
    contact_email: 'support@agent-marketplace.invalid',
    legal_info_url: `${base}/llms.txt`,
  };
}

/** A small mark for manifests that want a logo. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#1f3a5f"/><path d="M16 44 L32 16 L48 44 Z" fill="none" stroke="#fff" stroke-width="5" stroke-linejoin="round"/></svg>';

/** The Markdown page of each listed item: a REST operation (by operationId) or an MCP tool (by name). */
export const LLMS_PAGES = '/llms';

type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: unknown }>;
  security?: unknown[];
  'x-graphql-operation'?: string;
  'x-rate-limit-per-minute'?: number | null;
};
type OpenApiDocument = { paths: Record<string, Record<string, unknown>> };

/** The operation of a route in the OpenAPI document (its first path). */
function operationOf(openapi: OpenApiDocument, route: CompiledRoute): { path: string; operation: Operation } {
  const path = route.paths[0].replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return { path, operation: openapi.paths[path][route.route.method.toLowerCase()] as Operation };
}

const auth = (r: CompiledRoute) => (r.route.auth === 'none' ? '' : r.route.auth === 'admin' ? ' (admin)' : ' (key)');

/** Where a toolset is served: /mcp for the default, /mcp/x/<name> for the others. */
const toolsetUrl = (base: string, name: string) => (name === DEFAULT_TOOLSET ? `${base}/mcp` : `${base}/mcp/x/${name}`);

export function llmsTxt(
  base: string,
  routes: CompiledRoute[],
  tools: CompiledTool[],
  capabilities: CapabilityTool[],
  openapi: OpenApiDocument,
  toolsets: ReadonlyMap<string, string[]>,
): string {
  const api = `${base}/api/v1`;
  const page = (kind: 'rest' | 'mcp', name: string) => `${base}${LLMS_PAGES}/${kind}/${encodeURIComponent(name)}.md`;
  const restPage = (method: string, path: string) => {
    const route = routes.find((r) => r.route.method === method && r.paths[0] === path)!;
    return page('rest', operationOf(openapi, route).operation.operationId);
  };
  const lines = [
    `# ${NAME}`,
    '',
    `> ${SUMMARY}`,
    '',
    `Version ${VERSION}. Every operation is defined once in GraphQL; REST, MCP tools and A2A run the same operations.`,
    'Errors are application/problem+json with a `code`; request fields are read in snake_case and camelCase.',
    'Each item below links to a Markdown page about it: what it does, what it takes and what it answers.',
    '',
    '## Start here',
    '',
    `- [Register](${restPage('POST', '/agents/register')}): \`POST ${api}/agents/register\` with \`name\` (3-50), \`description\`, \`ownerEmail\`. The answer's \`master_key\` is shown once: it is your bearer credential (\`Authorization: Bearer key_master_…\`) everywhere.`,
    `- [Find](${restPage('GET', '/capabilities/search')}): \`GET ${api}/capabilities/search?q=…\` (no key), then \`POST ${api}/resolve\` to rank the providers of one.`,
    `- [Run](${restPage('POST', '/execute')}): \`POST ${api}/execute\` with \`{"capability": "…", "input": {…}}\`: the best provider is called, with fallback.`,
    '',
    '## Surfaces',
    '',
    `- [OpenAPI document](${api}/openapi.json): every REST operation at ${api}`,
    `- [GraphQL](${base}/graphql): the native API (POST and GET; subscriptions over WebSocket on the same path and over SSE at ${base}/graphql/stream)`,
    `- [MCP server](${base}/mcp): Streamable HTTP, the ${toolsets.get(DEFAULT_TOOLSET)?.length ?? 0} tools of the default toolset; the other toolsets (below) at ${base}/mcp?toolsets=<name>,<name> or ${base}/mcp/x/<name>, all ${tools.length + capabilities.length} tools at ${base}/mcp/x/${ALL_TOOLSETS}; send your key as a bearer token on the connection`,
    `- [A2A](${base}/api/a2a): JSON-RPC 2.0 (message/send and SendMessage generations); a message \`{"capability", "input"}\` runs execute`,
    `- [Agent card](${base}/.well-known/agent-card.json): also at ${base}/.well-known/agent.json`,
    `- [WebMCP manifest](${base}/.well-known/webmcp.json): the tool manifest; the tool index is at ${api}/webmcp/tools`,
    `- [Plugin manifest](${base}/.well-known/ai-plugin.json)`,
    `- [Signing keys](${base}/.well-known/jwks.json): verify webhook signatures (Ed25519)`,
    '',
    '## MCP toolsets',
    '',
    ...[...toolsets]
      .filter(([, names]) => names.length > 0)
      .map(([name, names]) => `- [${name}](${toolsetUrl(base, name)}): ${TOOLSETS[name]}. ${names.length} tools: ${names.join(', ')}`),
    '',
    '## MCP tools',
    '',
    ...tools.map(
      (t) =>
        `- [${t.spec.name}](${page('mcp', t.spec.name)}) (${t.auth === 'none' ? '' : 'key, '}toolset ${t.spec.toolset}): ${firstSentence(t.definition.description)}`,
    ),
  ];
  if (capabilities.length) {
    lines.push('', "## The marketplace's own capabilities (MCP tools)", '');
    for (const c of capabilities)
      lines.push(`- [${c.definition.name}](${page('mcp', c.definition.name)}) (key, toolset ${c.toolset}): ${firstSentence(c.capability.summary)}`);
  }
  const byTag = new Map<string, CompiledRoute[]>();
  for (const r of routes) byTag.set(r.route.tag, [...(byTag.get(r.route.tag) ?? []), r]);
  for (const [tag, list] of byTag) {
    lines.push('', `## REST: ${tag}`, '');
    for (const r of list)
      lines.push(`- [${r.route.method} ${r.paths[0]}](${page('rest', operationOf(openapi, r).operation.operationId)})${auth(r)}: ${r.route.summary}`);
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The Markdown page of one listed item (`rest/<operationId>` or `mcp/<tool>`), or undefined when there is
 * no such item: what it does, how to call it, and the JSON Schemas of what it takes and answers.
 */
export function llmsPage(
  base: string,
  kind: string,
  name: string,
  routes: CompiledRoute[],
  tools: CompiledTool[],
  capabilities: CapabilityTool[],
  openapi: OpenApiDocument,
): string | undefined {
  const json = (value: unknown) => ['```json', JSON.stringify(value, null, 2), '```'];
  if (kind === 'rest') {
    const route = routes.find((r) => operationOf(openapi, r).operation.operationId === name);
    if (!route) return undefined;
    const { path, operation } = operationOf(openapi, route);
    const pointer = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${route.route.method.toLowerCase()}`;
    const lines = [
      `# ${route.route.method} ${base}/api/v1${route.paths[0]}`,
      '',
      `> ${route.route.summary}`,
      '',
      ...(route.route.description ? [route.route.description, ''] : []),
      `- Authentication: ${route.route.auth === 'none' ? 'none' : route.route.auth === 'admin' ? 'the administrator key (`Authorization: Bearer key_admin_…`)' : "the agent's master key (`Authorization: Bearer key_master_…`)"}`,
      `- Rate limit: ${route.route.bucket ? `${route.route.bucket.perMinute} a minute per credential` : 'none'}`,
      ...(route.paths.length > 1
        ? [
            `- Also at: ${route.paths
              .slice(1)
              .map((p) => `\`${p}\``)
              .join(', ')}`,
          ]
        : []),
      `- OpenAPI: ${base}/api/v1/openapi.json${pointer}`,
      `- GraphQL (${base}/graphql): \`${operation['x-graphql-operation'] ?? ''}\``,
    ];
    if (operation.parameters?.length) lines.push('', '## Parameters', '', ...json(operation.parameters));
    if (operation.requestBody) lines.push('', '## Request body', '', ...json(operation.requestBody));
    lines.push('', '## Answers', '');
    for (const [status, response] of Object.entries(operation.responses)) lines.push(`- ${status}: ${response.description ?? ''}`);
    const success = operation.responses[String(route.route.status)];
    if (success?.content) lines.push('', `## ${route.route.status}`, '', ...json(success.content));
    return `${lines.join('\n')}\n`;
  }
  if (kind === 'mcp') {
    const tool = tools.find((t) => t.spec.name === name);
    const capability = tool ? undefined : capabilities.find((c) => c.definition.name === name);
    const definition = tool?.definition ?? capability?.definition;
    const toolset = tool?.spec.toolset ?? capability?.toolset;
    if (!definition || !toolset) return undefined;
    return `${[
      `# MCP tool ${definition.name}`,
      '',
      `> ${definition.title}`,
      '',
      definition.description,
      '',
      `Call it on the MCP server with \`tools/call\`, name \`${definition.name}\`. It is in the toolset \`${toolset}\`: served at ${toolsetUrl(base, toolset)} (Streamable HTTP)${toolset === DEFAULT_TOOLSET ? ' and every other toolset' : ` and ${base}/mcp?toolsets=${toolset}`}.`,
      '',
      '## Input schema',
      '',
      ...json(definition.inputSchema),
      '',
      '## Output schema',
      '',
      ...json(definition.outputSchema),
    ].join('\n')}\n`;
  }
  return undefined;
}

function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(text);
  return (m ? m[1] : text).trim();
}
