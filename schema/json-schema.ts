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

/** A UUID (an agent, service or other record id). */
export const uuid: JsonSchemaExtension = { jsonSchema: { format: 'uuid' } };

/** The JSON Schema an argument or input field's extensions add, if any. */
export function jsonSchemaOf(extensions: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> {
  const extra = extensions?.jsonSchema;
  return typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : {};
}
