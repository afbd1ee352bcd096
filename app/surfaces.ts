// The surfaces: the documents REST routes and MCP tools run, compiled at start; the gate every GraphQL
// operation passes; the endpoints (GraphQL over HTTP and WebSocket, REST, MCP, A2A) and the metrics.
import { A2aEndpoint } from '../protocols/a2a';
import { CapabilityTools } from '../protocols/capability-tools';
import { McpEndpoint } from '../protocols/mcp';
import { toolSpecs } from '../protocols/mcp-tools';
import { buildOpenApi } from '../protocols/openapi';
import { CatalogResources } from '../protocols/resources';
import { compileTools, type CompiledTool } from '../protocols/tools';
import { GraphQLHttp } from '../graphql/http';
import { OperationGate } from '../graphql/operation-gate';
import { FieldRateLimits } from '../graphql/rate-limits';
import { createGraphQLServer, maskErrorWith } from '../graphql/server';
import { rootAliases, routes } from '../rest/routes';
import { compileRoutes, RestDispatcher, type CompiledRoute } from '../rest/runner';
import { StreamBridge } from '../rest/streams';
import { schema } from '../schema/index';
import type { Services } from '../src/domain/context';
import { FIRST_PARTY } from '../src/domain/first-party/first-party';
import { coordinateOf } from '../src/pipeline/compile';
import { Metrics } from '../src/platform/metrics';

export interface Documents {
  compiled: CompiledRoute[];
  tools: CompiledTool[];
}

/** The REST routes' and MCP tools' documents, parsed and compiled; one that does not fit the schema throws. */
export function compileDocuments(): Documents {
  const compiled = compileRoutes(schema, routes);
  return { compiled, tools: compileTools(schema, toolSpecs, compiled) };
}

/**
 * For as long as `opening` (the database) is still pending, the documents are validated one by one, each as
 * its first run would: a start's first requests find theirs done. Nothing waits for them.
 */
export function validateWhileOpening(opening: Promise<unknown>, { compiled, tools }: Documents): void {
  let open = false;
  opening.then(
    () => (open = true),
    () => (open = true),
  );
  void (async () => {
    for (const op of [...compiled, ...tools.map((t) => t.op)]) {
      await new Promise((resolve) => setImmediate(resolve));
      if (open) return;
      try {
        op.validate();
      } catch {
        // its first run reports it
      }
    }
  })();
}

/** The marketplace's own tools as its WebMCP manifest and the tool index describe them. */
export function ownToolsOf(tools: CompiledTool[]): NonNullable<Services['ownTools']> {
  const described = (t: CompiledTool) => ({
    name: t.spec.name,
    description: t.definition.description,
    category: t.category,
    inputSchema: t.definition.inputSchema,
  });
  return {
    name: 'Agent Capability Marketplace',
    description:
      'Find agent capabilities and the providers that offer them, ranked by reputation, cost and latency, and execute them with automatic routing and fallback.',
    manifest: tools.filter((t) => t.spec.manifest).map(described),
    all: tools.map(described),
  };
}

export interface Surfaces {
  graphql: ReturnType<typeof createGraphQLServer>;
  graphqlHttp: GraphQLHttp;
  rest: RestDispatcher;
  mcp: McpEndpoint;
  a2a: A2aEndpoint;
  /** The REST layer's event streams. */
  streams: StreamBridge;
  metrics: Metrics;
  /** The first-party capabilities this instance serves. */
  offered: ReturnType<CapabilityTools['offered']>;
  openapi: () => ReturnType<typeof buildOpenApi>;
}

/** Every surface's endpoint on the finished services, with the metrics they report. */
export function buildSurfaces(services: Services, { compiled, tools }: Documents): Surfaces {
  const config = services.config;
  // A GraphQL root field spends the bucket of its REST twin (CONTRACT §5), or of its tool when it has none.
  const limits = new FieldRateLimits(
    new Map([
      ...tools.filter((t) => t.bucket).map((t) => [coordinateOf(t.op), t.bucket!] as const),
      ...compiled.filter((c) => c.route.bucket).map((c) => [coordinateOf(c), c.route.bucket!] as const),
    ]),
  );
  const gate = new OperationGate(schema, limits, { introspection: config.graphqlIntrospection });
  const graphql = createGraphQLServer(services, schema, gate);
  const graphqlHttp = new GraphQLHttp(services, schema, gate, maskErrorWith(services));
  const metrics = new Metrics(() => services.events.openStreams);
  metrics.gauge('graphql_document_cache_bytes', 'What the parsed GraphQL documents kept for reuse weigh (bounded)', () => gate.cached.bytes);
  metrics.gauge('graphql_document_cache_entries', 'Parsed GraphQL documents kept for reuse', () => gate.cached.entries);
  metrics.gauge(
    'graphql_introspection_cache_entries',
    'Answers of introspection operations kept, each computed once (bounded)',
    () => gate.introspectionsKept.entries,
  );
  metrics.gauge('read_cache_bytes', 'What the answers kept in the read cache weigh (bounded)', () => services.readCache.kept.bytes);
  metrics.databaseGauges(services.sql);
  // The first-party capabilities this instance serves: their schemas in the OpenAPI document, their MCP tools.
  const capabilityTools = new CapabilityTools(schema, compiled, FIRST_PARTY.values(), new Set(tools.map((t) => t.spec.name)));
  const offered = capabilityTools.offered(services);
  // Built at its first request rather than at start, which it would slow.
  let built: ReturnType<typeof buildOpenApi> | undefined;
  const openapi = () =>
    (built ??= buildOpenApi(
      compiled,
      schema,
      config.publicBaseUrl,
      offered.map((t) => t.capability),
    ));

  const mcp = new McpEndpoint(services, tools, new CatalogResources(schema, compiled, config), capabilityTools);
  const a2a = new A2aEndpoint(services, schema, compiled);
  const streams = new StreamBridge(services);
  const rest = new RestDispatcher(compiled, services, '/api/v1', { '/openapi.json': openapi }, rootAliases, streams);
  return { graphql, graphqlHttp, rest, mcp, a2a, streams, metrics, offered, openapi };
}
