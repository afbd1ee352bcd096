// The one naming rule of REST requests (CONTRACT §3): every field of a body's input type, at any depth,
// and every query parameter is read in both spellings, snake_case and camelCase, as the input type's
// field. The same field given in both spellings with different values is refused; unknown fields are
// left for GraphQL's coercion to refuse. Answers to the client name each field as the client spelled it.
import { getNullableType, isInputObjectType, isListType, type GraphQLInputObjectType, type GraphQLInputType } from 'graphql';
import type { GraphQLError } from 'graphql';
import type { FieldError } from '../platform/errors';
import { camelCase, sameJson, snakeCase } from '../platform/naming';

/**
 * Names REST documents in snake_case: the ones the specification writes so (its request fields and the
 * resource fields they set), and our own fields beside them. Every other field is documented as GraphQL
 * names it (camelCase). Only documentation and error messages read this; both spellings are always accepted.
 */
const SNAKE_CASE_NAMES = new Set([
  // the specification's request fields (§4, and execute's support-ticket input)
  'min_reputation',
  'max_cost',
  'pricing_model',
  'pricing_details',
  'transaction_id',
  'service_key',
  'ticket_receive_url',
  'sub_agent_id',
  'success_criteria',
  'spark_type',
  'quality_score',
  'required_capabilities',
  'max_budget_usd',
  'target_state',
  'triggered_by',
  'exit_conditions',
  'conglomerate_type',
  'instance_url',
  'target_service',
  'callback_url',
  'task_id',
  // resource fields a request sets (§2 Service key)
  'rate_limits',
  'expires_at',
  // ours, beside them
  'max_cost_cents',
  'deadline_ms',
  'allow_fallbacks',
  'min_success_rate',
  'max_latency_p95_ms',
  'requests_per_minute',
  'requests_per_day',
  'grace_period_seconds',
  'refund_cents',
  'default_ttl_seconds',
  'ttl_seconds',
  'top_k',
  'max_loss_usd',
  'profit_target_usd',
  'cost_usd',
  'proceeds_usd',
  'execution_id',
  // the gateway's, beside instance_url
  'external_agent_id',
  'input_schema',
  'price_cents',
  'expires_in',
  'swarm_id',
  'offer_id',
  'price_base_units',
  'payee_agent_id',
  'payee_external_agent_id',
]);

/** How REST documents a GraphQL input field's name. */
export function documentedName(field: string): string {
  const snake = snakeCase(field);
  return SNAKE_CASE_NAMES.has(snake) ? snake : field;
}

type Segment = string | number;

/** One input object type's fields by every accepted spelling. */
interface FieldPlan {
  byKey: Map<string, { field: string; type: GraphQLInputType }>;
}

const plans = new WeakMap<GraphQLInputObjectType, FieldPlan>();

function planOf(type: GraphQLInputObjectType): FieldPlan {
  let plan = plans.get(type);
  if (plan) return plan;
  plan = { byKey: new Map() };
  plans.set(type, plan);
  for (const field of Object.values(type.getFields())) {
    for (const key of new Set([field.name, snakeCase(field.name), camelCase(field.name)])) {
      const taken = plan.byKey.get(key);
      if (taken && taken.field !== field.name) throw new Error(`${type.name}: fields ${taken.field} and ${field.name} are both spelled ${key}`);
      plan.byKey.set(key, { field: field.name, type: field.type });
    }
  }
  return plan;
}

/** What reading one request learnt: the client's spelling of each field it sent, and what it refused. */
export class Spelling {
  /** How a field the client did not send is named: REST's documented spelling unless told otherwise. */
  constructor(private readonly documented: (field: string) => string = documentedName) {}

  /** Each field sent, by its path in the input type's names (`entries.0.ttlSeconds`) → the client's (`entries.0.ttl_seconds`). */
  private readonly sent = new Map<string, string>();
  readonly errors: FieldError[] = [];

  /** Records that the variable or field `canonical` came as `client` (a query parameter's spelling). */
  note(canonical: string, client: string): void {
    this.sent.set(canonical, client);
  }

  /**
   * The value with every field of `type` (at any depth) under the input type's name. `canon` and `client`
   * are where the value sits in the request, in the input type's names and in the client's.
   */
  read(value: unknown, type: GraphQLInputType, canon: Segment[] = [], client: Segment[] = canon): unknown {
    const inner = getNullableType(type);
    if (isListType(inner)) {
      // A single value where a list is expected is read as a list of one (GraphQL input coercion).
      if (!Array.isArray(value)) return this.read(value, inner.ofType, canon, client);
      return value.map((v, i) => this.read(v, inner.ofType, [...canon, i], [...client, i]));
    }
    if (!isInputObjectType(inner) || !isPlainObject(value)) return value;
    const plan = planOf(inner);
    const out: Record<string, unknown> = {};
    const spelledAs: Record<string, string> = {};
    for (const [key, v] of Object.entries(value)) {
      const known = plan.byKey.get(key);
      if (!known) {
        // Left for GraphQL's coercion to name as not a known field (defined, so `__proto__` stays a key).
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
        continue;
      }
      const fieldCanon = [...canon, known.field];
      const fieldClient = [...client, key];
      const read = this.read(v, known.type, fieldCanon, fieldClient);
      if (Object.prototype.hasOwnProperty.call(spelledAs, known.field)) {
        if (!sameJson(out[known.field], read)) {
          this.errors.push({ path: fieldClient.join('.'), message: `is given twice, as ${spelledAs[known.field]} and ${key}, with different values` });
        }
        continue;
      }
      spelledAs[known.field] = key;
      out[known.field] = read;
      this.sent.set(fieldCanon.join('.'), fieldClient.join('.'));
    }
    return out;
  }

  /**
   * A field path in the input type's names (from GraphQL's coercion or a domain check), named for the
   * client: as it spelled each field it sent, in the documented spelling where it sent none. Segments
   * past the input type (inside a JSON value) are kept as they are.
   */
  clientPath(path: string, type: GraphQLInputType | undefined): string {
    const segments = path === '' ? [] : path.split('.');
    const out: string[] = [];
    const canon: string[] = [];
    let current = type && getNullableType(type);
    for (const segment of segments) {
      // A list's index, or (for a single value read as a list of one) the element's own field.
      while (current && isListType(current)) {
        if (/^\d+$/.test(segment)) break;
        current = getNullableType(current.ofType);
      }
      canon.push(segment);
      const sent = this.sent.get(canon.join('.'));
      if (current && isListType(current)) {
        out.push(segment);
        current = getNullableType(current.ofType);
        continue;
      }
      const field = current && isInputObjectType(current) ? current.getFields()[segment] : undefined;
      if (sent !== undefined) out.splice(0, out.length, ...sent.split('.'));
      else out.push(field ? this.documented(field.name) : segment);
      current = field ? getNullableType(field.type) : undefined;
    }
    return out.join('.');
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** graphql-js's coercion messages, said the way a client reads them. */
export function fieldError(path: readonly (string | number)[], error: GraphQLError, prefix: string): FieldError {
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
