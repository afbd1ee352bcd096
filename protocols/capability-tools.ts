// The capabilities the marketplace serves itself as MCP tools: one per first-party capability this instance can serve,
// with the capability's schemas. A call runs execute with the marketplace as chosen provider (so the answer is held to
// the output schema), with execute's bucket, authentication and recording. Built from the first-party table, so an
// entry added there is a tool in its catalog group's toolset (toolsets.ts).
import type { GraphQLSchema } from 'graphql';
import { executionReceipt } from '../rest/execution';
import type { CompiledRoute } from '../rest/runner';
import { compileOperation, type CompiledOperation } from '../src/pipeline/compile';
import { runOperation, type Charge } from '../src/pipeline/pipeline';
import { CATALOG } from '../src/domain/capabilities/catalog';
import type { FirstPartyCapability } from '../src/domain/first-party/types';
import type { Ctx, Services } from '../src/domain/context';
import { codeOf, problemFromError, ValidationFailed, type FieldError, type Problem } from '../src/platform/errors';
import type { ToolDefinition } from './tools';
import { DEFAULT_TOOLSET, TOOLSET_META } from './toolsets';

const DOCUMENT = /* GraphQL */ `
  mutation CapabilityTool($capability: String!, $input: JSON!) {
    execute(input: { capability: $capability, input: $input, provider: "marketplace", mode: chosen }) {
      ...ExecutionReceiptFields
    }
  }
  ${executionReceipt}
`;

/** The MCP toolset of each catalog group's capability tools (spec §1's groups). */
const GROUP_TOOLSETS: Record<string, string> = {
  nlp: 'nlp',
  web_automation: 'web',
  radio: 'radio',
  security: 'security',
  books: 'books',
  ticketing: 'tickets',
};
/** Capability tools served in the default toolset: opening a support ticket is one of an agent's main journeys. */
const IN_DEFAULT = new Set(['support-ticket']);
const GROUP_OF = new Map(Object.entries(CATALOG).flatMap(([group, items]) => items.map(([slug]) => [slug, group] as const)));

/** The MCP toolset a first-party capability's tool is served in. */
export function capabilityToolset(slug: string): string {
  if (IN_DEFAULT.has(slug)) return DEFAULT_TOOLSET;
  const toolset = GROUP_TOOLSETS[GROUP_OF.get(slug) ?? ''];
  if (!toolset) throw new Error(`capability tools: ${slug} is in no catalog group with a toolset (protocols/capability-tools.ts)`);
  return toolset;
}

export interface CapabilityTool {
  capability: FirstPartyCapability;
  /** Its MCP toolset (toolsets.ts). */
  toolset: string;
  definition: ToolDefinition;
}

/**
 * What a capability tool answered: the capability's output with the execution that produced it; the
 * execution alone when the marketplace's call failed (its `error` says why); or the problem that refused it.
 */
export type CapabilityAnswer =
  | { kind: 'output'; output: Record<string, unknown>; execution: Record<string, unknown> }
  | { kind: 'failed'; execution: Record<string, unknown> }
  | { kind: 'refused'; problem: Problem };

export class CapabilityTools {
  private readonly op: CompiledOperation;
  private readonly charges: readonly Charge[];
  private readonly tools: Map<string, CapabilityTool>;

  constructor(
    schema: GraphQLSchema,
    routes: CompiledRoute[],
    capabilities: Iterable<FirstPartyCapability>,
    /** Names already taken by the operation tools: a capability may not shadow one. */
    taken: ReadonlySet<string>,
  ) {
    this.op = compileOperation(schema, 'capability tools', DOCUMENT);
    const execute = routes.find((r) => r.label === 'POST /execute');
    if (!execute) throw new Error('capability tools: no route POST /execute');
    // One budget with REST's execute and the execute tools.
    this.charges = execute.charges;
    this.tools = new Map();
    for (const capability of capabilities) {
      if (taken.has(capability.slug)) throw new Error(`capability tools: ${capability.slug} is already the name of a tool`);
      const toolset = capabilityToolset(capability.slug);
      this.tools.set(capability.slug, { capability, toolset, definition: definitionOf(capability, toolset) });
    }
  }

  /** The tools of the capabilities this instance serves now (a model-backed one without its backend is not one). */
  offered(services: Services): CapabilityTool[] {
    return [...this.tools.values()].filter((t) => servedHere(t.capability, services));
  }

  /** The tool of that name, when this instance offers it. */
  find(name: string, services: Services): CapabilityTool | undefined {
    const tool = this.tools.get(name);
    return tool && servedHere(tool.capability, services) ? tool : undefined;
  }

  /**
   * Runs the capability for the caller in `ctx`: its arguments are the capability's input (checked against
   * its input schema by execute, each refusal naming the argument). The marketplace's own calls are free,
   * so nothing here takes a payment.
   */
  async run(tool: CapabilityTool, ctx: Ctx, args: unknown): Promise<CapabilityAnswer> {
    const base = ctx.services.config.publicBaseUrl;
    const named = (err: unknown) => (err instanceof ValidationFailed ? new ValidationFailed(err.errors.map((e) => ({ ...e, path: argumentPath(e) }))) : err);
    try {
      return await runOperation<CapabilityAnswer>({
        surface: 'mcp',
        ctx,
        label: `tool ${tool.definition.name}`,
        charges: this.charges,
        auth: 'agent',
        headers: {},
        read: () => {
          if (typeof args !== 'object' || args === null || Array.isArray(args))
            throw new ValidationFailed([{ path: 'arguments', message: 'must be an object' }]);
          return { variables: { capability: tool.capability.slug, input: args } };
        },
        cost: (variables) => named(this.op.costProblem(variables)) as Error | undefined,
        run: async (variables) => {
          const result = await this.op.execute(undefined, ctx, variables);
          if (result.errors?.length) {
            const first = result.errors[0];
            if (codeOf(first) === 'internal')
              ctx.services.log.error({ err: first.originalError ?? first, request_id: ctx.requestId, tool: tool.definition.name }, 'tool failed');
            const original = first instanceof ValidationFailed ? first : first.originalError;
            return { kind: 'refused', problem: problemFromError(base, original instanceof ValidationFailed ? named(original) : first, ctx.requestId) };
          }
          const { result: output, ...execution } = (result.data as { execute: Record<string, unknown> }).execute;
          const caller = ctx.resolvedPrincipal;
          if (caller?.kind === 'agent') ctx.services.usage.record(caller.agent.id, `MCP ${tool.definition.name}`, ctx.services.clock.now());
          if (execution.status !== 'success' || typeof output !== 'object' || output === null || Array.isArray(output)) return { kind: 'failed', execution };
          return { kind: 'output', output: output as Record<string, unknown>, execution };
        },
      });
    } catch (err) {
      const problem = problemFromError(base, named(err), ctx.requestId);
      if (problem.code === 'internal') ctx.services.log.error({ err, request_id: ctx.requestId, tool: tool.definition.name }, 'tool failed');
      return { kind: 'refused', problem };
    }
  }
}

function servedHere(capability: FirstPartyCapability, services: Services): boolean {
  return capability.available ? capability.available(services) : true;
}

/** A refusal of execute's input, named as the tool's argument (`input.text` → `text`). */
function argumentPath(e: FieldError): string {
  if (e.path === 'input') return 'arguments';
  if (e.path.startsWith('input.')) return e.path.slice('input.'.length);
  return e.path;
}

function definitionOf(c: FirstPartyCapability, toolset: string): CapabilityTool['definition'] {
  const served = c.kind === 'own' ? "on the marketplace's own data" : 'by the marketplace itself (the execute tool also reaches registered providers)';
  return {
    name: c.slug,
    title: c.slug,
    description: `${c.summary.replace(/\.$/, '')}. Runs execute with \`${c.slug}\`, served ${served}; the answer is the capability's output, the execution is in \`_meta["marketplace/execution"]\`. Needs the caller's key (\`Authorization: Bearer key_master_…\` on the MCP connection).`,
    inputSchema: { ...c.inputSchema, type: 'object' },
    outputSchema: { ...c.outputSchema, type: 'object' },
    annotations: { title: c.slug, readOnlyHint: false, destructiveHint: false, openWorldHint: c.kind === 'generic' },
    _meta: { [TOOLSET_META]: toolset },
  };
}
