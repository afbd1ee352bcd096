// The OpenAPI 3.1 document of the REST layer, built from the route tables: request schemas from the
// documents' variable types, response schemas from their selection sets (aliases are the JSON names),
// so it cannot drift from what the server does.
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  isCompositeType,
  getNamedType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { fieldOf, type CompiledOperation, type CompiledRoute } from '../../rest/runner';
import { documentedName } from '../../rest/spelling';
import { otherSpelling } from '../platform/naming';
import { API_DOCUMENT_VERSION } from '../config';
import { jsonSchemaOf } from '../../schema/json-schema';
import { problemDescription, problemStatus, problemTitle } from '../platform/errors';

type JsonSchema = Record<string, unknown>;

function scalarSchema(type: GraphQLScalarType | GraphQLEnumType): JsonSchema {
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  switch (type.name) {
    case 'String':
      return { type: 'string' };
    case 'ID':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    default:
      return {};
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * The JSON Schema of an input type. `documented` names each field as REST documents it (spelling.ts) and
 * says which other spelling is accepted; without it, fields keep GraphQL's names.
 */
export function inputSchema(type: GraphQLInputType, strict = true, documented = false): JsonSchema {
  if (type instanceof GraphQLNonNull) return inputSchema(type.ofType, strict, documented);
  if (type instanceof GraphQLList) return { type: 'array', items: inputSchema(type.ofType, strict, documented) };
  if (type instanceof GraphQLInputObjectType) {
    const fields = Object.values(type.getFields());
    const nameOf = (field: string) => (documented ? documentedName(field) : field);
    const schema: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(
        fields.map((f) => {
          const name = nameOf(f.name);
          const other = otherSpelling(name);
          const description = [f.description, documented && other !== name ? `Also accepted as \`${other}\`.` : undefined].filter(Boolean).join(' ');
          return [name, { ...inputSchema(f.type, strict, documented), ...jsonSchemaOf(f.extensions), ...(description ? { description } : {}) }];
        }),
      ),
      additionalProperties: !strict,
    };
    const required = fields.filter((f) => f.type instanceof GraphQLNonNull && f.defaultValue === undefined).map((f) => nameOf(f.name));
    if (required.length) schema.required = required;
    return schema;
  }
  return scalarSchema(type as GraphQLScalarType | GraphQLEnumType);
}

function outputSchema(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
): JsonSchema {
  if (type instanceof GraphQLNonNull) return valueSchema(type.ofType, selection, fragments);
  return nullable(valueSchema(type, selection, fragments));
}

/** A value of the type when it is present. */
function valueSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (type instanceof GraphQLList) return { type: 'array', items: outputSchema(type.ofType, selection, fragments) };
  if (isCompositeType(type) && selection) return objectSchema(type as GraphQLObjectType, selection, fragments);
  return scalarSchema(type as GraphQLScalarType | GraphQLEnumType);
}

function objectSchema(type: GraphQLObjectType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const add = (s: SelectionSetNode) => {
    for (const sel of s.selections) {
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        if (sel.name.value === '__typename') {
          properties[key] = { type: 'string' };
        } else {
          const field = type.getFields()[sel.name.value];
          const schema = outputSchema(field.type, sel.selectionSet, fragments);
          properties[key] = field.description ? { ...schema, description: field.description } : schema;
        }
        required.push(key);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        add(sel.selectionSet);
      } else {
        const frag = fragments.get(sel.name.value);
        if (frag) add(frag.selectionSet);
      }
    }
  };
  add(set);
  return { type: 'object', properties, required: [...new Set(required)] };
}

const problemRef = (name: string) => ({ 'application/problem+json': { schema: { $ref: `#/components/schemas/${name}` } } });

function errorResponse(status: number) {
  const code = (Object.keys(problemStatus) as (keyof typeof problemStatus)[]).find((c) => problemStatus[c] === status && c !== 'validation_failed');
  const description =
    status === 400
      ? `${problemTitle.bad_request} or ${problemTitle.validation_failed}: ${problemDescription.validation_failed}`
      : status === 405
        ? 'Method Not Allowed: the path exists with other methods (see `Allow`).'
        : status === 413
          ? 'Payload Too Large: the body is over 1 MiB.'
          : status === 415
            ? 'Unsupported Media Type: the body must be JSON.'
            : code
              ? `${problemTitle[code]}: ${problemDescription[code]}`
              : 'Error';
  const response: Record<string, unknown> = { description, content: problemRef(status === 400 ? 'ValidationProblem' : 'Problem') };
  if (status === 429) response.headers = { ...rateHeaders(), 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until a retry can succeed' } };
  if (status === 402) {
    response.headers = {
      'PAYMENT-REQUIRED': {
        schema: { type: 'string' },
        description: 'When the answer carries x402 payment requirements (`x402Version`, `resource`, `accepts`): the same PaymentRequired, base64-encoded JSON (x402 v2 HTTP transport)',
      },
    };
  }
  return response;
}

/** The headers a route says its success answer may carry. */
function responseHeaders(route: CompiledRoute['route']) {
  return Object.fromEntries(Object.entries(route.responseHeaders ?? {}).map(([name, description]) => [name, { schema: { type: 'string' }, description }]));
}

function rateHeaders() {
  return {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per minute for this operation and credential' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window' },
    'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (seconds) when the window resets' },
  };
}

/**
 * What each variable of an operation feeds: the description and JSON Schema extensions (ranges) of the
 * argument or input field it is passed to, so a parameter or tool input says what the field says.
 */
export function variableUses(schema: GraphQLSchema, c: CompiledOperation): Map<string, { description?: string; schema: JsonSchema }> {
  const uses = new Map<string, { description?: string; schema: JsonSchema }>();
  const typeInfo = new TypeInfo(schema);
  const fieldNames: string[] = [];
  visit(
    c.operation,
    visitWithTypeInfo(typeInfo, {
      ObjectField: { enter: (node) => void fieldNames.push(node.name.value), leave: () => void fieldNames.pop() },
      Variable(node) {
        const name = node.name.value;
        if (uses.has(name)) return;
        const parent = typeInfo.getParentInputType();
        const inObject = parent && getNamedType(parent) instanceof GraphQLInputObjectType && fieldNames.length ? (getNamedType(parent) as GraphQLInputObjectType).getFields()[fieldNames[fieldNames.length - 1]] : undefined;
        const fed = inObject ?? typeInfo.getArgument();
        if (!fed) return;
        uses.set(name, { ...(fed.description ? { description: fed.description } : {}), schema: jsonSchemaOf(fed.extensions) });
      },
    }),
  );
  return uses;
}

/**
 * The JSON Schema of what an operation answers: the root field's value, or the data object when the root
 * field is a leaf or a list; aliases are the property names.
 */
export function answerSchema(c: CompiledOperation, schema: GraphQLSchema): JsonSchema {
  const fragments = new Map(c.document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const rootType = c.operation.operation === 'mutation' ? schema.getMutationType()! : c.operation.operation === 'subscription' ? schema.getSubscriptionType()! : schema.getQueryType()!;
  const rootSelection = c.operation.selectionSet;
  const answer = c.rootIsObject
    ? outputSchema(fieldOf(schema, c).type, (rootSelection.selections[0] as { selectionSet?: SelectionSetNode }).selectionSet, fragments)
    : objectSchema(rootType, rootSelection, fragments);
  return stripNull(answer);
}

export function buildOpenApi(compiled: CompiledRoute[], schema: GraphQLSchema, baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const c of compiled) {
    const { route } = c;
    const responseSchema = answerSchema(c, schema);

    const parameters: unknown[] = [];
    const uses = variableUses(schema, c);
    // The body (a `body` variable's type, or an object of the `bodyField`s), under its documented names.
    const body = c.bodyType ? inputSchema(c.bodyType, true, true) : undefined;
    const bodyRequired = c.variables.some((v) => (v.source.from === 'body' || v.source.from === 'bodyField') && v.type instanceof GraphQLNonNull);
    for (const v of c.variables) {
      if (v.source.from !== 'path' && v.source.from !== 'query' && v.source.from !== 'header') continue;
      const other = otherSpelling(v.source.name);
      const accepted = v.source.from === 'query' && other !== v.source.name ? `Also accepted as \`${other}\`.` : undefined;
      const description = [v.source.from === 'path' ? undefined : v.source.description, accepted].filter(Boolean).join(' ');
      parameters.push({
        name: v.source.name,
        in: v.source.from,
        required: v.source.from === 'path' || v.type instanceof GraphQLNonNull,
        schema: { ...inputSchema(v.type), ...uses.get(v.name)?.schema },
        ...(description ? { description } : {}),
      });
    }

    const errorStatuses = new Set<number>([400, 500, ...(route.errors ?? [])]);
    if (route.auth !== 'none') {
      errorStatuses.add(401);
      errorStatuses.add(403);
    }
    if (route.bucket) errorStatuses.add(429);
    if (body) {
      errorStatuses.add(413);
      errorStatuses.add(415);
    }
    if (c.variables.some((v) => v.source.from === 'path')) errorStatuses.add(404);

    const successHeaders = route.bucket || route.responseHeaders ? { ...(route.bucket ? rateHeaders() : {}), ...responseHeaders(route) } : undefined;
    for (const path of c.paths) {
      const oasPath = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const alias = path !== c.paths[0];
      paths[oasPath] ??= {};
      paths[oasPath][route.method.toLowerCase()] = {
        operationId: `${c.operation.name?.value ?? c.rootField}${alias ? `Via${oasPath.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase())}` : ''}`,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        security: route.auth === 'none' ? [] : [{ bearerAuth: [] }],
        ...(parameters.length ? { parameters } : {}),
        ...(body ? { requestBody: { required: bodyRequired, content: { 'application/json': { schema: body } } } } : {}),
        responses: {
          [String(route.status)]: {
            description: route.summary,
            ...(successHeaders ? { headers: successHeaders } : {}),
            content: c.stream
              ? {
                  'text/event-stream': {
                    schema: { type: 'string', description: 'Server-Sent Events: each event has `id` (for Last-Event-ID), `event` (its name) and `data`, one JSON object of this shape; the stream ends with `event: end`' },
                    'x-event-data': responseSchema,
                  },
                }
              : route.produces
                ? { [route.produces]: { schema: { type: 'string' } } }
                : { 'application/json': { schema: responseSchema } },
          },
          ...Object.fromEntries([...errorStatuses].sort().map((s) => [String(s), errorResponse(s)])),
        },
        'x-graphql-operation': c.document.loc?.source.body.replace(/\s+/g, ' ').trim(),
        'x-rate-limit-per-minute': route.bucket?.perMinute ?? null,
      };
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Capability Marketplace API',
      version: API_DOCUMENT_VERSION,
      description:
        'REST projection of the GraphQL API at /graphql: every operation runs a GraphQL document, whose aliases are the JSON names. ' +
        'Errors are application/problem+json (RFC 9457) with `code` and `request_id`. Rate limits are per operation per credential ' +
        '(per client address without one), reported in X-RateLimit-* headers. Every body field (at any depth) and query parameter ' +
        'is read in both spellings, snake_case and camelCase: each is documented under one and says which other is accepted; the same ' +
        'field given in both with different values, and an unknown field, are rejected with 400 naming it. Responses use the documented keys.',
    },
    servers: [{ url: `${baseUrl}/api/v1` }],
    tags: [...new Set(compiled.map((c) => c.route.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An agent master key (`key_master_…`), or the administrator key (`key_admin_…`) on /admin routes',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string', enum: Object.keys(problemStatus) },
            request_id: { type: 'string' },
          },
        },
        ValidationProblem: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              type: 'object',
              properties: {
                errors: {
                  type: 'array',
                  items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
                },
              },
            },
          ],
        },
      },
    },
  };
}

function stripNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) return { ...schema, type: (schema.type as string[]).find((t) => t !== 'null') };
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[])[0];
  return schema;
}

