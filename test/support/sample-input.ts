// Sample values for GraphQL input types: every field at every depth, for tests generated from the route
// tables (a route added later is covered without writing anything).
import { getNullableType, isEnumType, isInputObjectType, isListType, type GraphQLInputType } from 'graphql';
import { otherSpelling } from '../../src/platform/naming';

/** A JSON value with keys of both spellings, which must reach the operation exactly as sent. */
export const JSON_SAMPLE = { some_key: 1, someKey: [{ nested_key: true }] };

let counter = 0;

/**
 * A value of `type` with every field present, named as GraphQL names them. Strings are unique per call
 * (so creations do not collide), shaped by their field's name where the shape is obvious.
 */
export function sampleValue(type: GraphQLInputType, field = '', depth = 0): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return [sampleValue(inner.ofType, field, depth + 1)];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isInputObjectType(inner)) {
    if (depth > 6) return {};
    return Object.fromEntries(Object.values(inner.getFields()).map((f) => [f.name, sampleValue(f.type, f.name, depth + 1)]));
  }
  counter += 1;
  switch (inner.name) {
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'DateTime':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'JSON':
      return JSON_SAMPLE;
    default: {
      const name = field.toLowerCase();
      if (name.includes('email')) return `owner${counter}@example.com`;
      if (name.includes('url') || name === 'endpoint') return `https://receiver.example.com/hook/${counter}`;
      if (name === 'schedule') return '*/5 * * * *';
      return `sample-value-${process.pid}-${counter}`;
    }
  }
}

/** The value with every field of `type` (at any depth, not inside JSON values) in its other spelling. */
export function respell(value: unknown, type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return Array.isArray(value) ? value.map((v) => respell(v, inner.ofType)) : value;
  if (!isInputObjectType(inner) || typeof value !== 'object' || value === null) return value;
  const fields = inner.getFields();
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [otherSpelling(k), fields[k] ? respell(v, fields[k].type) : v]));
}

/** Whether `type` has a field (at any depth) whose name has another spelling. */
export function hasRespellableField(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const inner = getNullableType(type);
  if (isListType(inner)) return hasRespellableField(inner.ofType, seen);
  if (!isInputObjectType(inner) || seen.has(inner.name)) return false;
  seen.add(inner.name);
  return Object.values(inner.getFields()).some((f) => otherSpelling(f.name) !== f.name || hasRespellableField(f.type, seen));
}
