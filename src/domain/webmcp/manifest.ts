// The WebMCP tool manifest: what a site serves at /.well-known/webmcp.json, and what the marketplace
// serves there itself (spec §4.14: version 1.0.0 and the eight tools of its manifest). A manifest is
// `{ version, name?, description?, tools: [{ name, description, inputSchema, category? }] }`; reading one
// names every problem with its place in the document.
import { Checks } from '../../platform/validate';
import { withBothSpellings } from '../../platform/naming';
import { ValidationFailed } from '../../platform/errors';

export const MANIFEST_VERSION = '1.0.0';
export const MAX_TOOLS = 500;
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const CATEGORY = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const DEFAULT_CATEGORY = 'general';

export interface ManifestTool {
  name: string;
  description: string;
  category: string;
  inputSchema: Record<string, unknown>;
}

export interface Manifest {
  version: string;
  name: string | null;
  description: string | null;
  tools: ManifestTool[];
}

/** A manifest from its JSON, or ValidationFailed naming each problem (`tools.3.inputSchema`). */
export function readManifest(json: unknown): Manifest {
  const checks = new Checks();
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ValidationFailed([{ path: '', message: 'must be a JSON object' }]);
  const doc = withBothSpellings(json as Record<string, unknown>);
  const version = checks.text('version', doc.version, { max: 32, required: true });
  if (version && !/^\d+\.\d+(\.\d+)?$/.test(version)) checks.fail('version', 'must be a version such as "1.0.0"');
  const name = checks.text('name', doc.name, { max: 200 }) || null;
  const description = checks.text('description', doc.description, { max: 2000, multiline: true }) || null;
  const tools: ManifestTool[] = [];
  if (!Array.isArray(doc.tools)) checks.fail('tools', 'must be a list of tools');
  else if (doc.tools.length === 0) checks.fail('tools', 'must list at least one tool');
  else if (doc.tools.length > MAX_TOOLS) checks.fail('tools', `must list at most ${MAX_TOOLS} tools`);
  else {
    const seen = new Set<string>();
    doc.tools.forEach((raw, i) => {
      const at = `tools.${i}`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return checks.fail(at, 'must be an object');
      const tool = withBothSpellings(raw as Record<string, unknown>, `${at}.`);
      const toolName = checks.text(`${at}.name`, tool.name, { max: 64, required: true });
      if (toolName && !TOOL_NAME.test(toolName)) checks.fail(`${at}.name`, 'must start with a letter and hold letters, digits, _ . - (at most 64)');
      else if (toolName && seen.has(toolName)) checks.fail(`${at}.name`, `names ${toolName} a second time`);
      if (toolName) seen.add(toolName);
      const toolDescription = checks.text(`${at}.description`, tool.description, { max: 2000, required: true, multiline: true });
      const category = checks.text(`${at}.category`, tool.category, { max: 64 })?.toLowerCase() || DEFAULT_CATEGORY;
      if (!CATEGORY.test(category)) checks.fail(`${at}.category`, 'must be lower-case letters, digits, _ and - (at most 64)');
      const schema = tool.inputSchema;
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) checks.fail(`${at}.inputSchema`, 'must be a JSON Schema object');
      else if ((schema as { type?: unknown }).type !== 'object') checks.fail(`${at}.inputSchema.type`, 'must be "object"');
      else if (JSON.stringify(schema).length > 16_384) checks.fail(`${at}.inputSchema`, 'must be at most 16384 characters of JSON');
      if (toolName && toolDescription) tools.push({ name: toolName, description: toolDescription, category, inputSchema: schema as Record<string, unknown> });
    });
  }
  checks.done();
  return { version: version!, name, description, tools };
}
