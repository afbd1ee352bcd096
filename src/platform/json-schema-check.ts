// Checking a value against a JSON Schema (ajv), with each problem read as a field error in the house's
// words (`labels.0 must be a string`), so a value checked by its schema fails like one checked by Checks.
// Schemas are compiled once each (kept by identity).
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from './errors';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, verbose: true });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'a JSON object',
  array: 'a list',
  null: 'null',
};

/** Patterns schemas use, in words. */
const PATTERN_WORDS: Record<string, string> = {
  '^https://': 'must be an HTTPS URL',
};

const FORMAT_WORDS: Record<string, string> = {
  uri: 'an absolute URL',
  url: 'an absolute URL',
  uuid: 'a UUID',
  'date-time': 'a date-time (RFC 3339)',
  email: 'an email address',
};

function pathOf(e: ErrorObject, prefix: string): string {
  const parts = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required' || e.keyword === 'dependencies' || e.keyword === 'dependentRequired') parts.push(String(e.params.missingProperty));
  if (e.keyword === 'additionalProperties') parts.push(String(e.params.additionalProperty));
  const path = parts.join('.');
  return prefix && path ? `${prefix}.${path}` : prefix || path;
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'dependencies':
    case 'dependentRequired':
      return `is required with ${p.property}`;
    case 'additionalProperties':
      return 'is not a field of this input';
    case 'type': {
      const types = String(p.type).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maxLength':
      return `must be at most ${p.limit} characters`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'minItems':
      return p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} entries`;
    case 'maxItems':
      return `must have at most ${p.limit} entries`;
    case 'minProperties':
      return `must have at least ${p.limit} fields`;
    case 'maxProperties':
      return `must have at most ${p.limit} fields`;
    case 'uniqueItems':
      return 'must not repeat an entry';
    case 'format':
      return `must be ${FORMAT_WORDS[String(p.format)] ?? `in the format ${p.format}`}`;
    case 'pattern':
      return PATTERN_WORDS[String(p.pattern)] ?? `must match ${p.pattern}`;
    case 'oneOf':
    case 'anyOf': {
      const description = (e.parentSchema as { description?: unknown } | undefined)?.description;
      return typeof description === 'string' ? `must be one of its forms: ${description}` : 'must match one of its forms';
    }
    default:
      return e.message ?? `fails ${e.keyword}`;
  }
}

/**
 * The problems of `value` against `schema`, each as a field error under `prefix` (`input`), at most
 * `max` of them; none when it is valid.
 */
export function schemaProblems(schema: object, value: unknown, prefix = '', max = 20): FieldError[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  // A oneOf's own branches' complaints say less than its description: keep the oneOf's alone.
  const alternatives = new Set(errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').map((e) => e.schemaPath));
  const kept = errors.filter((e) => ![...alternatives].some((s) => e.schemaPath.startsWith(`${s}/`)));
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of kept) {
    const problem = { path: pathOf(e, prefix), message: messageOf(e) };
    const key = `${problem.path}\n${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(problem);
    if (out.length >= max) break;
  }
  return out;
}
