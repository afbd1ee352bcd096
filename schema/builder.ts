// The Pothos builder: plugins, the context type, scalars and auth scopes. It defines no object types;
// each area's file does (see schema/index.ts).
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import CallerAuthPlugin from './caller-auth';
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type PrismaTypes from '../src/db/generated/pothos-types';
import { getDatamodel } from '../src/db/generated/pothos-types';
import type { Ctx } from '../src/domain/context';
import { NotFound } from '../src/platform/errors';

export const builder = new SchemaBuilder<{
  Context: Ctx;
  PrismaTypes: PrismaTypes;
  // Who may call a field is its `auth` option (caller-auth.ts); scope-auth decides who may see an object.
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
  },
});

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
