// The MCP server's toolsets, as GitHub's MCP server groups its tools: `/mcp` serves the 25 tools of an
// agent's main journeys (spec §4.14's count), and a client asks for more by name, `/mcp?toolsets=memory,uto`
// or `/mcp/x/memory`, or for every tool with `all`. A tool's toolset is a field of its table entry
// (mcp-tools.ts; capability-tools.ts for the capability tools). More than 128 tools is past what some
// clients take in one list, and a model picks better among fewer.

/** Always served; the tools of an agent's main journeys. */
export const DEFAULT_TOOLSET = 'default';
/** Every tool. */
export const ALL_TOOLSETS = 'all';
/** The toolsets a session may name at once (besides the default). */
const MAX_ASKED = 32;
/** Where a tool's toolset shows in tools/list (and in protocols/generated/mcp-tools.json). */
export const TOOLSET_META = 'marketplace/toolset';
/** How many tools `/mcp` serves by default (spec §4.14: "25 tools"). */
export const DEFAULT_TOOL_COUNT = 25;

/** Every toolset, by name, with what it holds: the server's instructions and /llms.txt list them from here. */
export const TOOLSETS: Readonly<Record<string, string>> = {
  [DEFAULT_TOOLSET]:
    "An agent's main journeys: discover and resolve, execute, registration and the account, sub-keys, the wallet, tasks, memory, support tickets, skills and sparks (always served)",
  account: "The caller's profile, sub-agents, executions, their signed receipts and transactions",
  keys: 'Rotating and verifying sub-keys',
  payments: 'Wallets and their ledgers, spend mandates for sub-agents, the x402 sandbox, capability pricing and ACP offerings',
  discovery: 'Listings: quick resolve, services, the showcase, the capability catalog and health',
  services: "A provider's services: register, update, pause, resume, remove, analytics and prices",
  disputes: 'Disputing a transaction and reading a dispute',
  tickets: 'Support tickets: listing, moving and commenting, and the ticketing capabilities',
  subscriptions: 'Webhooks and scheduled capability subscriptions',
  memory: 'Memory stores: listing stores, reading entries',
  streaming: 'Streaming sessions: open, push, end',
  skills: 'Creating, publishing and forking skills',
  tasks: 'Listing tasks, delegating them to sub-agents and executing them as one',
  swarm: 'Swarm workflows: start, read, cancel',
  uto: 'Orchestration tickets (UTO): open, list, move, specialists and notifications',
  ammc: 'Agent conglomerates (AMMC): form, read, move, agents and statistics',
  ext: 'The third-party agent gateway: external agents, capabilities, passports, vault tokens, tool conversion, offers and checkouts, radio',
  nlp: "The marketplace's own language capabilities (summarize, translate, …) as tools",
  web: "The marketplace's own web capabilities (web-browse, web-extract, web-monitor, web-research) as tools",
  radio: "The marketplace's own social radio capabilities as tools",
  security: "The marketplace's own security capabilities (trust-score, skill-audit) as tools",
  books: "The marketplace's own collaborative-books capabilities as tools",
};

/** What a session serves: the default toolset and those it asked for, or every tool. */
export type ToolsetSelection = { all: true } | { all: false; names: ReadonlySet<string> };

export function serves(selection: ToolsetSelection, toolset: string): boolean {
  return selection.all || selection.names.has(toolset);
}

/** Why a request's toolsets were refused: the message a client shows. */
export class UnknownToolset extends Error {}

/**
 * The toolsets a request to /mcp asks for: the path's (`/mcp/x/memory`, `/mcp/x/memory,uto`) and the
 * `toolsets` query parameter's, comma-separated, joined. None: the default alone.
 */
export function askedToolsets(url: string, mcpPath: string): ToolsetSelection {
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  const names: string[] = [];
  const prefix = `${mcpPath}/x/`;
  if (pathname.startsWith(prefix)) names.push(...split(decode(pathname.slice(prefix.length).replace(/\/$/, ''))));
  if (q !== -1) for (const value of new URLSearchParams(url.slice(q + 1)).getAll('toolsets')) names.push(...split(value));
  if (names.length > MAX_ASKED) throw new UnknownToolset(`At most ${MAX_ASKED} toolsets may be asked for at once; ask for ${ALL_TOOLSETS} for every tool`);
  const unknown = [...new Set(names.filter((n) => n !== ALL_TOOLSETS && !(n in TOOLSETS)))];
  if (unknown.length) {
    const listed = unknown.map((n) => `'${n.slice(0, 40)}'`).join(', ');
    throw new UnknownToolset(
      `Unknown toolset${unknown.length > 1 ? 's' : ''} ${listed}: the toolsets are ${Object.keys(TOOLSETS).join(', ')}, or ${ALL_TOOLSETS} for every tool`,
    );
  }
  if (names.includes(ALL_TOOLSETS)) return { all: true };
  return { all: false, names: new Set([DEFAULT_TOOLSET, ...names]) };
}

/** Whether a path is the MCP endpoint's: /mcp, /mcp/, or a toolset's /mcp/x/<toolsets>. */
export function isMcpPath(pathname: string, mcpPath: string): boolean {
  return pathname === mcpPath || pathname === `${mcpPath}/` || pathname.startsWith(`${mcpPath}/x/`);
}

function split(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A tool as the toolsets see it: its name and the toolset its table entry names. */
export interface ToolsetMember {
  name: string;
  toolset: string | undefined;
}

/**
 * Checks that every tool names a known toolset and that the default holds exactly the spec's count, and
 * answers the tools of each toolset (in table order). Throws at start-up otherwise.
 */
export function groupTools(tools: ToolsetMember[]): Map<string, string[]> {
  const groups = new Map<string, string[]>(Object.keys(TOOLSETS).map((name) => [name, []]));
  for (const tool of tools) {
    if (tool.toolset === undefined) throw new Error(`MCP tool ${tool.name} names no toolset`);
    const group = groups.get(tool.toolset);
    if (!group) throw new Error(`MCP tool ${tool.name} names the toolset ${tool.toolset}, which is not one of protocols/toolsets.ts`);
    group.push(tool.name);
  }
  const count = groups.get(DEFAULT_TOOLSET)!.length;
  if (count !== DEFAULT_TOOL_COUNT) throw new Error(`The default MCP toolset holds ${count} tools; spec §4.14 says ${DEFAULT_TOOL_COUNT}`);
  return groups;
}

/**
 * What the server's instructions say of toolsets: what this session serves, and every other toolset this
 * instance has tools in, with how many, what it holds and how to ask for it.
 */
export function toolsetInstructions(endpoint: string, groups: ReadonlyMap<string, string[]>, selection: ToolsetSelection): string {
  const count = (name: string) => groups.get(name)?.length ?? 0;
  const total = [...groups.values()].reduce((n, g) => n + g.length, 0);
  if (selection.all) return `This session serves every toolset (${total} tools).`;
  const served = [...selection.names];
  const others = [...groups.keys()].filter((n) => !selection.names.has(n) && count(n) > 0);
  const text = [`This session serves the toolset${served.length > 1 ? 's' : ''} ${served.map((n) => `${n} (${count(n)} tools)`).join(', ')}.`];
  if (others.length) {
    text.push(
      `More tools come in named toolsets: open a session at ${endpoint}?toolsets=<name>,<name> or ${endpoint}/x/<name> (${endpoint}/x/${ALL_TOOLSETS} for all ${total}). ` +
        `${others.map((n) => `${n} (${count(n)}): ${TOOLSETS[n]}`).join('; ')}.`,
    );
  }
  return text.join(' ');
}
