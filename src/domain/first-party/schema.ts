// Small builders for the first-party capabilities' JSON Schemas, so each table reads as data.
import type { JsonSchema } from './types';

export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
export const num = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', description, ...extra });
export const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
export const list = (items: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, description, ...extra });
export const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
export const dateTime = (description: string): JsonSchema => str(description, { format: 'date-time' });

/** An object of `properties`, every one listed in `required`; no others (an input's unknown field is an error). */
export function obj(properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

/** A page of a listing: `limit` (1–100, 20) and `offset`. */
export const PAGE_FIELDS: Record<string, JsonSchema> = {
  limit: int('At most this many items (default 20)', { minimum: 1, maximum: 100 }),
  offset: int('Items to skip (default 0)', { minimum: 0, maximum: 1_000_000 }),
};
