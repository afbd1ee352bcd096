// What an argument or input field promises beyond its GraphQL type (a range, a length), kept on the field
// as `extensions.jsonSchema` so that every description generated from the schema (the OpenAPI document,
// MCP tool inputs) states it. The domain function still checks it: this only says it.
export type JsonSchemaExtension = {
  jsonSchema: Record<string, unknown>;
};

export function range(minimum: number, maximum?: number): JsonSchemaExtension {
  return { jsonSchema: maximum === undefined ? { minimum } : { minimum, maximum } };
}

export function length(minLength: number, maxLength: number): JsonSchemaExtension {
  return { jsonSchema: { minLength, maxLength } };
}

/** At most `max` characters (the shortest allowed is the operation's to say: often empty, or absent). */
export function maxLength(max: number): JsonSchemaExtension {
  return { jsonSchema: { maxLength: max } };
}

/** A UUID (an agent, service or other record id). */
export const uuid: JsonSchemaExtension = { jsonSchema: { format: 'uuid' } };

/** The JSON Schema an argument or input field's extensions add, if any. */
export function jsonSchemaOf(extensions: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> {
  const extra = extensions?.jsonSchema;
  return typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : {};
}

/** One of these strings (a field typed String whose values the operation holds to a set). */
export function oneOf(values: readonly string[]): JsonSchemaExtension {
  return { jsonSchema: { enum: [...values] } };
}

/** A list of at most `maxItems` entries, each held to `each` (a length, a set). */
export function listOf(maxItems: number | undefined, each: JsonSchemaExtension = { jsonSchema: {} }): JsonSchemaExtension {
  return { jsonSchema: { ...(maxItems === undefined ? {} : { maxItems }), ...(Object.keys(each.jsonSchema).length ? { items: each.jsonSchema } : {}) } };
}

/** Several promises about one field together (a length and a format, say). */
export function all(...parts: JsonSchemaExtension[]): JsonSchemaExtension {
  return { jsonSchema: Object.assign({}, ...parts.map((p) => p.jsonSchema)) };
}
