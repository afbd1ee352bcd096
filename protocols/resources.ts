// The capability catalog as MCP resources: one resource per capability (what it is and what its
// providers offer), at the URL of the same answer over REST, and the whole catalog. Read through tools
// that are REST routes' operations, so they share those routes' buckets and answers.
import type { ListResourcesResult, McpError, ReadResourceResult, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLSchema } from 'graphql';
import type { CompiledRoute } from '../rest/runner';
import type { Ctx } from '../src/domain/context';
import { INTERNAL_ERROR, INVALID_PARAMS } from './json-rpc';
import { compileTools, runTool, type CompiledTool } from './tools';

const PAGE = 100;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

export class CatalogResources {
  private readonly page: CompiledTool;
  private readonly one: CompiledTool;
  private readonly catalog: CompiledTool;

  constructor(
    schema: GraphQLSchema,
    routes: CompiledRoute[],
    private readonly config: { publicBaseUrl: string },
  ) {
    [this.page, this.one, this.catalog] = compileTools(
      schema,
      [
        { name: 'capabilityPage', title: 'Capabilities', route: 'GET /capabilities/search' },
        { name: 'capability', title: 'A capability', route: 'GET /capabilities/:slug' },
        { name: 'catalog', title: 'The capability catalog', route: 'GET /capabilities' },
      ],
      routes,
    );
  }

  /** Read when used: the public base URL is known once the server listens (tests set it then). */
  private get base(): string {
    return `${this.config.publicBaseUrl}/api/v1/capabilities`;
  }

  templates(): ResourceTemplate[] {
    return [
      {
        uriTemplate: `${this.base}/{slug}`,
        name: 'capability',
        title: 'A capability',
        description: 'One capability of the catalog: what it is, how many providers offer it, their prices and best reputation',
        mimeType: 'application/json',
      },
    ];
  }

  /** A page of the catalog, best known first; the first page also lists the whole catalog as one resource. */
  async list(ctx: Ctx, cursor: string | undefined): Promise<ListResourcesResult> {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(offset) || offset < 0) throw mcpError(INVALID_PARAMS, 'Invalid cursor');
    const answer = await runTool(this.page, ctx, { limit: PAGE, offset });
    if (!answer.ok) throw mcpError(INTERNAL_ERROR, answer.problem.detail);
    const { total, capabilities } = answer.value as { total: number; capabilities: { slug: string; name: string; description: string | null }[] };
    const resources: ListResourcesResult['resources'] = capabilities.map((c) => ({
      uri: `${this.base}/${c.slug}`,
      name: c.slug,
      title: c.name,
      ...(c.description ? { description: c.description } : {}),
      mimeType: 'application/json',
    }));
    if (offset === 0)
      resources.unshift({
        uri: this.base,
        name: 'capabilities',
        title: 'The capability catalog',
        description: 'Every capability with its group hierarchy',
        mimeType: 'application/json',
      });
    return { resources, ...(offset + capabilities.length < total ? { nextCursor: String(offset + PAGE) } : {}) };
  }

  async read(ctx: Ctx, uri: string): Promise<ReadResourceResult> {
    let answer;
    if (uri === this.base) answer = await runTool(this.catalog, ctx, {});
    else if (uri.startsWith(`${this.base}/`) && !uri.slice(this.base.length + 1).includes('/')) {
      answer = await runTool(this.one, ctx, { slug: decodeURIComponent(uri.slice(this.base.length + 1)) });
    } else throw mcpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`);
    if (!answer.ok) {
      if (answer.problem.status === 404 || answer.problem.status === 400) throw mcpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`);
      throw mcpError(INTERNAL_ERROR, answer.problem.detail);
    }
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(answer.value) }] };
  }
}

/** The SDK's McpError: resources are read within an MCP session only, which has loaded the SDK (mcp.ts). */
function mcpError(code: number, message: string): McpError {
  const types = require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
  return new types.McpError(code, message);
}
