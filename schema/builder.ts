// The Pothos builder: plugins, the context type, scalars and auth scopes. It defines no object types;
// each area's file does (see schema/index.ts).
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import CallerAuthPlugin from './caller-auth';
import { GraphQLError, GraphQLScalarType, Kind, type GraphQLResolveInfo, type ValueNode } from 'graphql';
import { isNoSuchRow } from '../src/db/database';
import type PrismaTypes from '../src/db/generated/pothos-types';
import { getDatamodel } from '../src/db/generated/pothos-types';
import type { Ctx } from '../src/domain/context';
import { AppError, NotFound } from '../src/platform/errors';

export const builder = new SchemaBuilder<{
  Context: Ctx;
  PrismaTypes: PrismaTypes;
  // Who may call a field is its `auth` option (caller-auth.ts); scope-auth decides who may see an object.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Pothos asks for an object type: here, no scopes
  AuthScopes: {};
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
}>({
  plugins: [ScopeAuthPlugin, CallerAuthPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // No named scopes: who may call a field is its `auth` option (caller-auth.ts), which throws its own
    // 401/403. What fails here is a type's ownership check (another agent's object), which answers as if
    // the object did not exist.
    authScopes: () => ({}),
    unauthorizedError: () => new NotFound('object'),
    authorizeOnSubscribe: true,
  },
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: true,
    // Every node of every type is loaded through loadNode: one that is not there answers as one the caller
    // may not see.
    nodeQueryOptions: { resolve: (_root, { id }, ctx, info) => loadNode(ctx, info, id) },
    nodesQueryOptions: { resolve: (_root, { ids }, ctx, info) => ids.map((id) => loadNode(ctx, info, id)) },
  },
});

/**
 * Loads the object a global id names, for Query.node and each id of Query.nodes (alone, so one bad id fails only its
 * place). An object that is not there and one its type's scope hides both answer "No such object" at the node's own
 * path: the two cannot be told apart, and neither is a 500 (scope-auth alone would fail at its first field instead).
 */
async function loadNode(ctx: Ctx, info: GraphQLResolveInfo, id: { typename: string; id: string }): Promise<unknown> {
  let node: unknown;
  try {
    const [loading] = await resolveNodes(builder, ctx, info, [id]);
    node = await loading;
  } catch (err) {
    if (isNoSuchRow(err) || (err instanceof AppError && err.code === 'not_found')) throw new NotFound('object');
    throw err;
  }
  if (node === null || node === undefined) throw new NotFound('object');
  const scope: unknown = builder.configStore.getTypeConfig(id.typename, 'Object').pothosOptions.authScopes;
  // With no named scopes, a type's scope function says yes with `true` and nothing else.
  if (typeof scope === 'function' && (await (scope as (row: unknown, ctx: Ctx) => unknown)(node, ctx)) !== true) throw new NotFound('object');
  return node;
}

function parseDate(value: unknown): Date {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError('DateTime must be an ISO 8601 string', { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return new Date(value);
}

builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    name: 'DateTime',
    description: 'An instant, as an ISO 8601 string in UTC',
    serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
    parseValue: parseDate,
    parseLiteral: (ast) => parseDate(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

function literalToJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw new GraphQLError('Variables inside JSON literals are not supported');
  }
}

builder.addScalarType(
  'JSON',
  new GraphQLScalarType({
    name: 'JSON',
    description: 'Any JSON value',
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: literalToJson,
  }),
);

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/** Type-level scope: rows that belong to one agent are visible to that agent only. */
export async function ownedByCaller(row: { agentId: string }, ctx: Ctx): Promise<boolean> {
  const p = await ctx.principal();
  return p.kind === 'agent' && p.agent.id === row.agentId;
}
