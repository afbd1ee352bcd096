// The documents that tell agents where the marketplace's surfaces are: /.well-known/ai-plugin.json (the
// plugin manifest, pointing at the OpenAPI document) and /llms.txt (llmstxt.org: what the marketplace is
// and where each surface lives, with the REST operations and MCP tools listed from their tables). Built
// when asked, so that absolute URLs follow PUBLIC_BASE_URL.
import type { CompiledRoute } from '../../rest/runner';
import { VERSION } from '../config';
import type { CompiledTool } from './tools';

const NAME = 'Agent Capability Marketplace';
const SUMMARY =
  'A marketplace where software agents register an identity, publish services that offer capabilities, find providers ranked by reputation, cost and latency, and execute capabilities through automatic routing with fallback.';

export function aiPlugin(base: string) {
  return {
    schema_version: 'v1',
    name_for_human: NAME,
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

export function llmsTxt(base: string, routes: CompiledRoute[], tools: CompiledTool[]): string {
  const api = `${base}/api/v1`;
  const lines = [
    `# ${NAME}`,
    '',
    `> ${SUMMARY}`,
    '',
    `Version ${VERSION}. Every operation is defined once in GraphQL; REST, MCP tools and A2A run the same operations.`,
    'Errors are application/problem+json with a `code`; request fields are read in snake_case and camelCase.',
    '',
    '## Start here',
    '',
    `- Register: \`POST ${api}/agents/register\` with \`name\` (3-50), \`description\`, \`ownerEmail\`. The answer's \`master_key\` is shown once: it is your bearer credential (\`Authorization: Bearer key_master_…\`) everywhere.`,
    `- Find: \`GET ${api}/capabilities/search?q=…\` (no key), then \`POST ${api}/resolve\` to rank the providers of one.`,
    `- Run: \`POST ${api}/execute\` with \`{"capability": "…", "input": {…}}\`: the best provider is called, with fallback.`,
    '',
    '## Surfaces',
    '',
    `- [OpenAPI document](${api}/openapi.json): every REST operation at ${api}`,
    `- [GraphQL](${base}/graphql): the native API (POST and GET; subscriptions over WebSocket on the same path and over SSE at ${base}/graphql/stream)`,
    `- [MCP server](${base}/mcp): Streamable HTTP, ${tools.length} tools; send your key as a bearer token on the connection`,
    `- [A2A](${base}/api/a2a): JSON-RPC 2.0 (message/send and SendMessage generations); a message \`{"capability", "input"}\` runs execute`,
    `- [Agent card](${base}/.well-known/agent-card.json): also at ${base}/.well-known/agent.json`,
    `- [WebMCP manifest](${base}/.well-known/webmcp.json): the tool manifest; the tool index is at ${api}/webmcp/tools`,
    `- [Plugin manifest](${base}/.well-known/ai-plugin.json)`,
    `- [Signing keys](${base}/.well-known/jwks.json): verify webhook signatures (Ed25519)`,
    '',
    '## MCP tools',
    '',
    ...tools.map((t) => `- \`${t.spec.name}\`${t.auth === 'none' ? '' : ' (key)'}: ${firstSentence(t.definition.description)}`),
    '',
    '## REST operations',
    '',
  ];
  const byTag = new Map<string, CompiledRoute[]>();
  for (const r of routes) byTag.set(r.route.tag, [...(byTag.get(r.route.tag) ?? []), r]);
  for (const [tag, list] of byTag) {
    lines.push(`### ${tag}`, '');
    for (const r of list) lines.push(`- \`${r.route.method} ${r.paths[0]}\`${r.route.auth === 'none' ? '' : r.route.auth === 'admin' ? ' (admin)' : ' (key)'}: ${r.route.summary}`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(text);
  return (m ? m[1] : text).trim();
}
