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
import type { CompiledRoute } from '../rest/runner';
import { fieldOf, type CompiledOperation } from '../src/pipeline/compile';
import { documentedName } from '../src/pipeline/spelling';
import { otherSpelling } from '../src/platform/naming';
import { API_DOCUMENT_VERSION } from '../src/config';
import { jsonSchemaOf } from '../schema/json-schema';
import { problemDescription, problemStatus, problemTitle } from '../src/platform/errors';
import type { FirstPartyCapability } from '../src/domain/first-party/types';

type JsonSchema = Record<string, unknown>;

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `extra` laid over `base`: a list's `items` and an object's `properties` are refined in turn (a field's
 * `{ items: { maxLength } }` keeps the items' type), `required` lists are joined, every other keyword is
 * replaced.
 */
export function refineSchema(base: JsonSchema, extra: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (key === 'items' && isObject(base.items) && isObject(value)) out.items = refineSchema(base.items, value);
    else if (key === 'required' && Array.isArray(base.required) && Array.isArray(value))
      out.required = [...new Set([...(base.required as string[]), ...(value as string[])])];
    else if (key === 'properties' && isObject(base.properties) && isObject(value)) {
      const properties: JsonSchema = { ...base.properties };
      for (const [name, schema] of Object.entries(value))
        properties[name] = isObject(properties[name]) && isObject(schema) ? refineSchema(properties[name] as JsonSchema, schema) : schema;
      out.properties = properties;
    } else out[key] = value;
  }
  return out;
}

/** A free-form object (a JSON field said to be an object) says so: any properties (generators read a bare object as an empty one). */
function anyObject(schema: JsonSchema): JsonSchema {
  return schema.type === 'object' && schema.properties === undefined && schema.additionalProperties === undefined
    ? { ...schema, additionalProperties: true }
    : schema;
}

/** A schema whose `required` lists (at any depth of its combinators) name fields by `nameOf`. */
export function renameRequired(schema: JsonSchema, nameOf: (field: string) => string): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (Array.isArray(schema.required)) out.required = (schema.required as string[]).map(nameOf);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as JsonSchema[]).map((s) => renameRequired(s, nameOf));
  }
  for (const key of ['not', 'if', 'then', 'else']) if (isObject(schema[key])) out[key] = renameRequired(schema[key] as JsonSchema, nameOf);
  return out;
}

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
          return [
            name,
            { ...anyObject(refineSchema(inputSchema(f.type, strict, documented), jsonSchemaOf(f.extensions))), ...(description ? { description } : {}) },
          ];
        }),
      ),
      additionalProperties: !strict,
    };
    const required = fields.filter((f) => f.type instanceof GraphQLNonNull && f.defaultValue === undefined).map((f) => nameOf(f.name));
    if (required.length) schema.required = required;
    // What the type says of its fields together (one of them required, say), over its fields' names.
    const own = jsonSchemaOf(type.extensions);
    return Object.keys(own).length ? refineSchema(schema, renameRequired(own, nameOf)) : schema;
  }
  return scalarSchema(type as GraphQLScalarType | GraphQLEnumType);
}

function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
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
          // Documents are validated at their first run (rest/runner.ts), so a drifted one is caught here first.
          if (!field) throw new Error(`invalid document: ${type.name} has no field ${sel.name.value}`);
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
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers every answer carries, and those of a route with a rate bucket. */
function commonHeaders(limited: boolean): Record<string, unknown> {
  return {
    'X-Request-Id': headerRef('X-Request-Id'),
    ...(limited
      ? {
          'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
          'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
          'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
        }
      : {}),
  };
}

function errorResponse(status: number, limited: boolean, execute: boolean) {
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
            : status === 503
              ? `${problemTitle.service_unavailable} (\`service_unavailable\`, with Retry-After): ${problemDescription.service_unavailable}${execute ? ` Or ${problemTitle.capability_unavailable} (\`capability_unavailable\`, without Retry-After): ${problemDescription.capability_unavailable}` : ''}`
              : code
                ? `${problemTitle[code]}: ${problemDescription[code]}`
                : 'Error';
  const headers: Record<string, unknown> = commonHeaders(limited);
  if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
  if (status === 402) {
    headers['PAYMENT-REQUIRED'] = {
      schema: { type: 'string' },
      description:
        'When the answer carries x402 payment requirements (`x402Version`, `resource`, `accepts`): the same PaymentRequired, base64-encoded JSON (x402 v2 HTTP transport)',
    };
  }
  return { description, headers, content: problemRef(status === 400 ? 'ValidationProblem' : status === 402 ? 'PaymentProblem' : 'Problem') };
}

/** The headers a route says its success answer may carry. */
function responseHeaders(route: CompiledRoute['route']) {
  return Object.fromEntries(Object.entries(route.responseHeaders ?? {}).map(([name, description]) => [name, { schema: { type: 'string' }, description }]));
}

/** The headers the document names once (components.headers) and every answer refers to. */
const HEADERS = {
  'X-Request-Id': {
    schema: { type: 'string' },
    description:
      "The request's id: the caller's own `X-Request-Id` when it is 1-128 of `A-Z a-z 0-9 . _ : -`, otherwise a new `req_…`; also `request_id` in a problem",
  },
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per minute for this operation and credential' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (seconds) when the window resets' },
  'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until a retry can succeed' },
  'Idempotent-Replayed': {
    schema: { type: 'string', enum: ['true'] },
    description: 'This is the stored answer to an earlier request with the same Idempotency-Key and the same request (sent only on a replay)',
  },
};

const PARAMETERS = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' },
    description:
      'Makes a retry safe: the first answer to this request is stored for 24 hours (per credential) and replayed, with `Idempotent-Replayed: true`, to a request with the same key and the same path, query and body; the same key with another request is 409, as is a retry while the first is still running. 1 to 255 visible ASCII characters.',
  },
  'X-Request-Id': {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    description: "An id of the caller's choosing for this request, echoed in `X-Request-Id` and in a problem's `request_id` (otherwise the server makes one)",
  },
};

/** A component name for a capability identifier: `web-browse` → `WebBrowse`. */
export function capabilitySchemaName(slug: string): string {
  return slug
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/**
 * The first-party capabilities' schemas as components (`WebBrowseInput`, `WebBrowseOutput`), and execute's body and
 * answer as one alternative per capability beside an open one for all others. A generic capability may be answered by a
 * registered provider the marketplace does not hold to its schemas, so the open alternative stays open to it.
 */
function capabilityComponents(capabilities: readonly FirstPartyCapability[]) {
  const schemas: Record<string, JsonSchema> = {};
  const names = new Map<string, string>();
  for (const c of capabilities) {
    const name = capabilitySchemaName(c.slug);
    const taken = names.get(name);
    if (taken) throw new Error(`capabilities ${taken} and ${c.slug} both name the schema ${name}`);
    names.set(name, c.slug);
    const own = c.kind === 'own' ? 'always answered by the marketplace' : 'answered by the marketplace as the provider of last resort';
    schemas[`${name}Input`] = {
      ...c.inputSchema,
      title: `${c.slug} input`,
      description: [
        `The input of \`${c.slug}\` (${own}): ${c.summary.replace(/\.$/, '')}.`,
        typeof c.inputSchema.description === 'string' ? c.inputSchema.description : undefined,
        'Top-level fields are also accepted in camelCase.',
      ]
        .filter(Boolean)
        .join(' '),
      'x-capability': c.slug,
    };
    schemas[`${name}Output`] = {
      ...c.outputSchema,
      title: `${c.slug} output`,
      description: [
        `What \`${c.slug}\` answers when the marketplace serves it (\`result\`): ${c.summary.replace(/\.$/, '')}.`,
        typeof c.outputSchema.description === 'string' ? c.outputSchema.description : undefined,
      ]
        .filter(Boolean)
        .join(' '),
      'x-capability': c.slug,
    };
  }
  const ownSlugs = capabilities.filter((c) => c.kind === 'own').map((c) => c.slug);
  const others: JsonSchema = ownSlugs.length
    ? { title: 'Any other capability', properties: { capability: { not: { enum: ownSlugs } } } }
    : { title: 'Any other capability' };
  const request = (c: FirstPartyCapability): JsonSchema => ({
    title: c.slug,
    properties: { capability: { const: c.slug }, input: { $ref: `#/components/schemas/${capabilitySchemaName(c.slug)}Input` } },
    required: ['capability', 'input'],
  });
  const answer = (c: FirstPartyCapability): JsonSchema => ({
    title: c.slug,
    properties: {
      capability: { const: c.slug },
      ...(c.kind === 'own' ? {} : { provider: { type: 'object', properties: { service_key: { const: 'marketplace' } }, required: ['service_key'] } }),
      result: { anyOf: [{ $ref: `#/components/schemas/${capabilitySchemaName(c.slug)}Output` }, { type: 'null' }] },
    },
    required: c.kind === 'own' ? ['capability', 'result'] : ['capability', 'provider', 'result'],
  });
  return {
    schemas,
    request: capabilities.length ? { anyOf: [...capabilities.map(request), others] } : {},
    answer: capabilities.length ? { anyOf: [...capabilities.map(answer), others] } : {},
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
        const inObject =
          parent && getNamedType(parent) instanceof GraphQLInputObjectType && fieldNames.length
            ? (getNamedType(parent) as GraphQLInputObjectType).getFields()[fieldNames[fieldNames.length - 1]]
            : undefined;
        const fed = inObject ?? typeInfo.getArgument();
        if (!fed) return;
        // A field may state the JSON Schema of arguments it does not declare itself (a connection's first and last).
        const stated = inObject ? undefined : (typeInfo.getFieldDef()?.extensions?.argumentSchemas as Record<string, JsonSchema> | undefined)?.[fed.name];
        uses.set(name, { ...(fed.description ? { description: fed.description } : {}), schema: { ...stated, ...jsonSchemaOf(fed.extensions) } });
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
  const rootType =
    c.operation.operation === 'mutation'
      ? schema.getMutationType()!
      : c.operation.operation === 'subscription'
        ? schema.getSubscriptionType()!
        : schema.getQueryType()!;
  const rootSelection = c.operation.selectionSet;
  const answer = c.rootIsObject
    ? outputSchema(fieldOf(schema, c).type, (rootSelection.selections[0] as { selectionSet?: SelectionSetNode }).selectionSet, fragments)
    : objectSchema(rootType, rootSelection, fragments);
  return stripNull(answer);
}

export function buildOpenApi(compiled: CompiledRoute[], schema: GraphQLSchema, baseUrl: string, capabilities: readonly FirstPartyCapability[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  const offered = capabilityComponents(capabilities);
  for (const c of compiled) {
    const { route } = c;
    const execute = c.rootField === 'execute' && route.method === 'POST';
    let responseSchema = answerSchema(c, schema);
    // An intersection (allOf) rather than sibling keywords, so that generated clients read it as one.
    if (execute && capabilities.length) responseSchema = { allOf: [responseSchema, offered.answer] };

    const parameters: unknown[] = [];
    const uses = variableUses(schema, c);
    // The body (a `body` variable's type, or an object of the `bodyField`s), under its documented names.
    let body = c.bodyType ? inputSchema(c.bodyType, true, true) : undefined;
    if (body) {
      // Named body fields say what the argument or input field each one feeds says (its range, its description).
      for (const v of c.variables) {
        if (v.source.from !== 'bodyField') continue;
        const use = uses.get(v.name);
        const properties = body.properties as Record<string, JsonSchema>;
        if (use && properties[v.source.name]) {
          properties[v.source.name] = {
            ...refineSchema(properties[v.source.name], use.schema),
            ...(use.description && !properties[v.source.name].description ? { description: use.description } : {}),
          };
        }
      }
      if (route.bodySchema) body = refineSchema(body, renameRequired(route.bodySchema, documentedName));
      if (execute && capabilities.length) body = { allOf: [body, offered.request] };
    }
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
        schema: refineSchema(inputSchema(v.type), uses.get(v.name)?.schema ?? {}),
        ...(description ? { description } : {}),
      });
    }
    if (route.paidWith) {
      parameters.push({
        name: route.paidWith,
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          'An x402 payment (base64-encoded JSON) for one of the requirements a 402 answered: the request then pays, exactly once, as the POST on this path does (HEAD never pays)',
      });
    }
    if (c.idempotent) parameters.push({ $ref: '#/components/parameters/Idempotency-Key' });
    parameters.push({ $ref: '#/components/parameters/X-Request-Id' });

    const errorStatuses = new Set<number>([400, 500, 503, ...(route.errors ?? [])]);
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
    // An Idempotency-Key used with another request, or while its first request runs.
    if (c.idempotent) errorStatuses.add(409);
    // Statuses the operation answers with its own document (a health report that is down) are not problems.
    for (const status of Object.keys(route.answers ?? {})) errorStatuses.delete(Number(status));

    const limited = route.bucket !== null;
    const successHeaders = {
      ...commonHeaders(limited),
      ...responseHeaders(route),
      ...(c.idempotent ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    };
    const content = c.stream
      ? {
          'text/event-stream': {
            schema: {
              type: 'string',
              description:
                'Server-Sent Events: each event has `id` (for Last-Event-ID), `event` (its name) and `data`, one JSON object of this shape; the stream ends with `event: end`',
            },
            'x-event-data': responseSchema,
          },
        }
      : route.produces
        ? { [route.produces]: { schema: { type: 'string' } } }
        : { 'application/json': { schema: responseSchema } };
    const answers = Object.fromEntries(
      Object.entries(route.answers ?? {}).map(([status, description]) => [
        status,
        { description, headers: { ...successHeaders, ...(Number(status) === 503 ? { 'Retry-After': headerRef('Retry-After') } : {}) }, content },
      ]),
    );
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
        parameters,
        ...(body ? { requestBody: { required: bodyRequired, content: { 'application/json': { schema: body } } } } : {}),
        responses: {
          [String(route.status)]: { description: route.summary, headers: successHeaders, content },
          ...answers,
          ...Object.fromEntries([...errorStatuses].sort().map((s) => [String(s), errorResponse(s, limited, execute)])),
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
        'field given in both with different values, and an unknown field, are rejected with 400 naming it. Responses use the documented keys. ' +
        'Every creating POST honours Idempotency-Key. The capabilities the marketplace serves itself have their input and output ' +
        'schemas under components.schemas (`<Capability>Input`, `<Capability>Output`), and POST /execute is described with them.',
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
      headers: HEADERS,
      parameters: PARAMETERS,
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
        PaymentProblem: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              type: 'object',
              description: 'When the call can be paid with x402, the PaymentRequired members (x402 v2); the same go base64-encoded in PAYMENT-REQUIRED',
              properties: {
                x402Version: { type: 'integer', enum: [2] },
                resource: {
                  type: 'object',
                  required: ['url'],
                  properties: { url: { type: 'string' }, description: { type: 'string' }, mimeType: { type: 'string' } },
                },
                accepts: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['scheme', 'network', 'asset', 'amount', 'payTo', 'maxTimeoutSeconds'],
                    properties: {
                      scheme: { type: 'string', enum: ['exact'] },
                      network: { type: 'string', description: 'CAIP-2 (`eip155:84532`)' },
                      asset: { type: 'string', description: 'The token contract' },
                      amount: { type: 'string', pattern: '^[0-9]+$', description: 'Base units' },
                      payTo: { type: 'string' },
                      maxTimeoutSeconds: { type: 'integer' },
                      extra: { type: 'object', additionalProperties: true },
                    },
                  },
                },
                error: { type: 'string', description: 'Why an attempted payment was refused (an x402 reason)' },
              },
            },
          ],
        },
        ...offered.schemas,
      },
    },
  };
}

function stripNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) return { ...schema, type: (schema.type as string[]).find((t) => t !== 'null') };
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[])[0];
  return schema;
}
