// Runs the route tables: each document is parsed and validated once at start-up, then every request
// is answered by graphql `execute` in-process on the same schema and context as /graphql. Errors become
// problem+json (CONTRACT §4) with the request id.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  coerceInputValue,
  execute,
  getNamedType,
  GraphQLError,
  isLeafType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Services } from '../src/domain/context';
import { createContext, rateSubject } from '../src/domain/request-context';
import { BadRequest, codeOf, problem, problemFromError, RateLimited, ValidationFailed, type FieldError } from '../src/platform/errors';
import type { RateDecision } from '../src/platform/rate-limit';
import type { Route, Source } from './route';

export interface CompiledRoute {
  route: Route;
  paths: string[];
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The response key of the one root field. */
  rootKey: string;
  rootField: string;
  /** Whether the root field is an object (its value is the body) or a leaf (the data object is). */
  rootIsObject: boolean;
  variables: { name: string; type: GraphQLInputType; source: Source }[];
}

export function compileRoutes(schema: GraphQLSchema, routes: Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const paths = Array.isArray(route.path) ? route.path : [route.path];
    const label = `${route.method} ${paths[0]}`;
    const document = parse(route.document);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`route ${label}: invalid document: ${errors.map((e) => e.message).join('; ')}`);
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    if (operations.length !== 1) throw new Error(`route ${label}: the document must hold exactly one operation`);
    const operation = operations[0];
    const fields = operation.selectionSet.selections;
    if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`route ${label}: the operation must select exactly one root field`);
    const root = fields[0];
    const rootType = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    const fieldDef = rootType?.getFields()[root.name.value];
    if (!fieldDef) throw new Error(`route ${label}: unknown root field ${root.name.value}`);
    const variables = (operation.variableDefinitions ?? []).map((def) => {
      const name = def.variable.name.value;
      const source = route.variables?.[name];
      if (!source) throw new Error(`route ${label}: variable $${name} has no source`);
      const type = typeFromAST(schema, def.type as never) as GraphQLInputType | undefined;
      if (!type) throw new Error(`route ${label}: unknown type for $${name}`);
      if (source.from === 'path' && !paths.every((p) => p.includes(`:${source.name}`))) {
        throw new Error(`route ${label}: path parameter :${source.name} is not in the path`);
      }
      return { name, type, source };
    });
    for (const name of Object.keys(route.variables ?? {})) {
      if (!variables.some((v) => v.name === name)) throw new Error(`route ${label}: $${name} is mapped but not declared`);
    }
    return {
      route,
      paths,
      document,
      operation,
      rootKey: root.alias?.value ?? root.name.value,
      rootField: root.name.value,
      rootIsObject: !isLeafType(getNamedType(fieldDef.type)),
      variables,
    };
  });
}

/** graphql-js's coercion messages, said the way a REST client reads them. */
function fieldError(path: readonly (string | number)[], error: GraphQLError, prefix: string): FieldError {
  const join = (parts: readonly (string | number)[]) => [prefix, ...parts].filter((p) => p !== '').join('.');
  let m = /^Field "([^"]+)" of required type "([^"]+)" was not provided\.$/.exec(error.message);
  if (m) return { path: join([...path, m[1]]), message: 'is required' };
  m = /^Field "([^"]+)" is not defined by type "[^"]+"\./.exec(error.message);
  if (m) return { path: join([...path, m[1]]), message: 'is not a known field' };
  m = /^Expected non-nullable type "[^"]+" not to be null\.$/.exec(error.message);
  if (m) return { path: join(path), message: 'must not be null' };
  m = /^Expected type "([^"]+)"(?: to be an object)?\.$/.exec(error.message);
  if (m) return { path: join(path), message: `must be ${error.message.includes('object') ? 'an object' : `a ${m[1]}`}` };
  m = /^Value "([^"]*)" does not exist in "[^"]+" enum\./.exec(error.message);
  if (m) return { path: join(path), message: `"${m[1]}" is not one of the allowed values` };
  m = /^(String|Int|Float|Boolean|ID) cannot represent/.exec(error.message);
  if (m) {
    const kind = { String: 'a string', Int: 'an integer', Float: 'a number', Boolean: 'a boolean', ID: 'a string or integer identifier' }[m[1]];
    return { path: join(path), message: `must be ${kind}` };
  }
  return { path: join(path), message: error.message.replace(/\.$/, '') };
}

/** A query-string value read as the variable's scalar type. */
function fromQueryString(raw: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type).name;
  if (named === 'Int') return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (named === 'Float') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (named === 'Boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

export function readVariables(compiled: CompiledRoute, req: Request): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const { name, type, source } of compiled.variables) {
    let raw: unknown;
    let prefix = '';
    switch (source.from) {
      case 'body': {
        const body = req.body ?? {};
        if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('The request body must be a JSON object');
        raw = body;
        break;
      }
      case 'bodyField':
        raw = (req.body ?? {})[source.name];
        prefix = source.name;
        break;
      case 'path':
        raw = req.params[source.name];
        prefix = source.name;
        break;
      case 'query': {
        const q = req.query[source.name];
        if (Array.isArray(q) || (q !== undefined && typeof q !== 'string')) {
          errors.push({ path: source.name, message: 'must be given once' });
          continue;
        }
        raw = q === undefined ? undefined : fromQueryString(q, type);
        prefix = source.name;
        break;
      }
      case 'header':
        raw = req.get(source.name);
        prefix = source.name;
        break;
    }
    if (raw === undefined) {
      if (isNonNullType(type)) errors.push({ path: prefix || name, message: 'is required' });
      continue;
    }
    coerceInputValue(raw, type, (path, _value, error) => errors.push(fieldError(path, error, prefix)));
    values[name] = raw;
  }
  if (errors.length) throw new ValidationFailed(errors);
  return values;
}

export function setRateHeaders(res: Response, decision: RateDecision): void {
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  res.setHeader('X-RateLimit-Reset', String(decision.reset));
  if (!decision.allowed) res.setHeader('Retry-After', String(decision.retryAfterSeconds));
}

export function sendProblem(res: Response, services: Services, err: unknown): void {
  const requestId = String(res.locals.requestId ?? '');
  const body = problemFromError(services.config.publicBaseUrl, err, requestId);
  if (body.code === 'internal') {
    services.log.error({ err, request_id: requestId }, 'request failed');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}

function handlerFor(compiled: CompiledRoute, services: Services, schema: GraphQLSchema) {
  const { route } = compiled;
  return async (req: Request, res: Response) => {
    const ctx = createContext(services, {
      authorization: req.headers.authorization,
      requestId: res.locals.requestId,
      clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    });
    ctx.rateLimited = true;
    try {
      if (route.bucket) {
        const decision = await services.limiter.consume(route.bucket, rateSubject(ctx));
        setRateHeaders(res, decision);
        if (!decision.allowed) throw new RateLimited(decision.retryAfterSeconds);
      }
      const variableValues = readVariables(compiled, req);
      const result = await execute({ schema, document: compiled.document, variableValues, contextValue: ctx });
      if (result.errors?.length) {
        const first = result.errors[0];
        if (codeOf(first) === 'internal') services.log.error({ err: first.originalError ?? first, request_id: ctx.requestId, path: first.path }, 'resolver failed');
        sendProblem(res, services, first);
        return;
      }
      const data = result.data as Record<string, unknown>;
      res.status(route.status).json(compiled.rootIsObject ? data[compiled.rootKey] : data);
    } catch (err) {
      sendProblem(res, services, err);
    }
  };
}

/** The /api/v1 router: every compiled route, 405 for a known path with another method, 404 otherwise. */
export function restRouter(compiled: CompiledRoute[], services: Services, schema: GraphQLSchema): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
      next(new BadRequest('The request body must be JSON (Content-Type: application/json)', 415));
      return;
    }
    next();
  });
  router.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
  const methodsByPath = new Map<string, Set<string>>();
  for (const c of compiled) {
    const handler = handlerFor(c, services, schema);
    for (const path of c.paths) {
      router[c.route.method.toLowerCase() as 'get'](path, handler);
      const methods = methodsByPath.get(path) ?? new Set<string>();
      methods.add(c.route.method);
      if (c.route.method === 'GET') methods.add('HEAD');
      methodsByPath.set(path, methods);
    }
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req: Request, res: Response) => {
      res.setHeader('Allow', [...methods].join(', '));
      const body = problem(services.config.publicBaseUrl, 'bad_request', `${req.method} is not allowed on ${req.baseUrl}${req.path}; use ${[...methods].join(', ')}`, res.locals.requestId, {}, 405);
      res.status(405).type('application/problem+json').send(JSON.stringify(body));
    });
  }
  router.use((req: Request, res: Response) => {
    const body = problem(services.config.publicBaseUrl, 'not_found', `No route ${req.method} ${req.baseUrl}${req.path}`, res.locals.requestId);
    res.status(404).type('application/problem+json').send(JSON.stringify(body));
  });
  // Body-parser failures and anything thrown before a handler ran.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, services, bodyError(err));
  });
  return router;
}

export function bodyError(err: unknown): unknown {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') return new BadRequest('The request body is larger than 1 MiB', 413);
  if (e?.type === 'entity.parse.failed') return new BadRequest('The request body is not valid JSON');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return new BadRequest('Unsupported body encoding', 415);
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new BadRequest('The request body could not be read', e.status);
  return err;
}

