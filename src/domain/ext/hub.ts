// The hub: one tool description in the four forms agents use — an MCP tool, an OpenAPI operation, an A2A
// skill and an Agent Skills SKILL.md — converted through one neutral form (name, title, description, input
// schema), so any pair converts and a round trip keeps the name, description and input schema. Importing
// makes one a skill or a service of the caller's.
import { ValidationFailed } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { registerService } from '../services/services';
import { parseSkillMd, yaml } from '../skills/skill-md';
import { createSkill, RUNTIMES } from '../skills/skills';
import { checkInputSchema } from './capabilities';

export const TOOL_FORMATS = ['mcp', 'openapi', 'a2a', 'skill_md'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** The neutral form every format converts through. */
export interface NeutralTool {
  name: string;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
}

const EMPTY_SCHEMA = () => ({ type: 'object', properties: {} });
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function readName(checks: Checks, path: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || !TOOL_NAME.test(value)) {
    checks.fail(path, 'must be a tool name: 1-128 letters, digits, underscores, dots and hyphens');
    return undefined;
  }
  return value;
}

const text = (checks: Checks, path: string, value: unknown, max = 4000) => checks.text(path, value, { max, multiline: true }) ?? '';

/** Reads a tool given in `format` into the neutral form; problems are reported under `tool`. */
export function readTool(checks: Checks, format: ToolFormat, tool: unknown): NeutralTool | undefined {
  if (format === 'skill_md') {
    if (typeof tool !== 'string') {
      checks.fail('tool', 'must be the SKILL.md text');
      return undefined;
    }
    return readSkillMd(checks, tool);
  }
  if (!obj(tool)) {
    checks.fail('tool', `must be an object: the ${format === 'mcp' ? 'MCP tool' : format === 'openapi' ? 'OpenAPI operation' : 'A2A skill'}`);
    return undefined;
  }
  if (format === 'mcp') {
    const name = readName(checks, 'tool.name', tool.name);
    const inputSchema = checkInputSchema(checks, 'tool.inputSchema', tool.inputSchema, false) ?? EMPTY_SCHEMA();
    const title = checks.text('tool.title', tool.title, { max: 200 }) || null;
    return name === undefined ? undefined : { name, title, description: text(checks, 'tool.description', tool.description), inputSchema };
  }
  if (format === 'a2a') {
    const name = readName(checks, 'tool.id', tool.id);
    const inputSchema = checkInputSchema(checks, 'tool.inputSchema', tool.inputSchema, false) ?? EMPTY_SCHEMA();
    const display = checks.text('tool.name', tool.name, { max: 200 }) || null;
    return name === undefined
      ? undefined
      : { name, title: display && display !== name ? display : null, description: text(checks, 'tool.description', tool.description), inputSchema };
  }
  return readOperation(checks, tool);
}

function readOperation(checks: Checks, op: Record<string, unknown>): NeutralTool | undefined {
  const name = readName(checks, 'tool.operationId', op.operationId);
  const summary = checks.text('tool.summary', op.summary, { max: 200 }) || null;
  const description = text(checks, 'tool.description', op.description) || summary || '';
  let inputSchema: Record<string, unknown> | undefined;
  const body = obj(op.requestBody) && obj(op.requestBody.content) ? op.requestBody.content['application/json'] : undefined;
  if (obj(body) && body.schema !== undefined) inputSchema = checkInputSchema(checks, 'tool.requestBody.content.application/json.schema', body.schema);
  // Parameters (path, query, header) become named arguments beside the body's.
  if (Array.isArray(op.parameters) && op.parameters.length) {
    const schema = structuredClone(inputSchema ?? EMPTY_SCHEMA()) as { type?: string; properties?: Record<string, unknown>; required?: string[] };
    schema.type = 'object';
    schema.properties = { ...(schema.properties ?? {}) };
    op.parameters.forEach((p, i) => {
      if (!obj(p) || typeof p.name !== 'string') return checks.fail(`tool.parameters.${i}`, 'must be a parameter with a name');
      schema.properties![p.name] = {
        ...(obj(p.schema) ? p.schema : { type: 'string' }),
        ...(typeof p.description === 'string' ? { description: p.description } : {}),
      };
      if (p.required === true) schema.required = [...new Set([...(schema.required ?? []), p.name])];
    });
    inputSchema = schema as Record<string, unknown>;
  }
  return name === undefined
    ? undefined
    : { name, title: summary && summary !== name && summary !== description ? summary : null, description, inputSchema: inputSchema ?? EMPTY_SCHEMA() };
}

function readSkillMd(checks: Checks, md: string): NeutralTool | undefined {
  // The skills module's reader: metadata it does not read itself (the hub's keys) is kept in frontMatter.
  const fields = parseSkillMd(checks, 'tool', md);
  if (!fields) return undefined;
  const metadata = obj(fields.frontMatter?.metadata) ? fields.frontMatter.metadata : {};
  // A tool name that is not an Agent Skills name travels in metadata (see renderSkillMd).
  const name = readName(checks, 'tool.name', typeof metadata.tool_name === 'string' ? metadata.tool_name : fields.name);
  let inputSchema: Record<string, unknown> | undefined;
  if (typeof metadata.input_schema === 'string') {
    try {
      inputSchema = checkInputSchema(checks, 'tool.metadata.input_schema', JSON.parse(metadata.input_schema));
    } catch {
      checks.fail('tool.metadata.input_schema', 'must be a JSON Schema as a JSON string');
    }
  }
  const title = typeof metadata.title === 'string' ? metadata.title : null;
  return name === undefined
    ? undefined
    : { name, title, description: text(checks, 'tool.description', fields.description), inputSchema: inputSchema ?? EMPTY_SCHEMA() };
}

/** A name as Agent Skills allows it: lower case, runs of anything else as one hyphen. */
export function skillNameOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'tool';
}

function renderSkillMd(t: NeutralTool): string {
  const skillName = skillNameOf(t.name);
  const metadata: Record<string, string> = { input_schema: JSON.stringify(t.inputSchema) };
  if (skillName !== t.name) metadata.tool_name = t.name;
  if (t.title) metadata.title = t.title;
  const front = yaml().stringify({ name: skillName, description: t.description, metadata }, { lineWidth: 0 });
  const args = Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const body = `# ${t.title ?? t.name}\n\n${t.description}\n${args.length ? `\nArguments: ${args.map((a) => `\`${a}\``).join(', ')} (the input schema is in the metadata).\n` : ''}`;
  return `---\n${front}---\n\n${body}`;
}

/** Writes the neutral form in `format`. */
export function writeTool(t: NeutralTool, format: ToolFormat): unknown {
  switch (format) {
    case 'mcp':
      return { name: t.name, ...(t.title ? { title: t.title } : {}), description: t.description, inputSchema: t.inputSchema };
    case 'a2a':
      // A2A skills have no schema field: the input schema travels beside the standard fields (clients ignore it).
      return {
        id: t.name,
        name: t.title ?? t.name,
        description: t.description,
        tags: [],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        inputSchema: t.inputSchema,
      };
    case 'openapi':
      return {
        operationId: t.name,
        summary: t.title ?? t.name,
        description: t.description,
        requestBody: { required: true, content: { 'application/json': { schema: t.inputSchema } } },
        responses: { '200': { description: 'The result', content: { 'application/json': { schema: { type: 'object' } } } } },
      };
    case 'skill_md':
      return renderSkillMd(t);
  }
}

export interface ConvertInput {
  from?: unknown;
  to?: unknown;
  tool?: unknown;
}

export interface Converted {
  from: ToolFormat;
  to: ToolFormat;
  tool: unknown;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export async function convertTool(ctx: Ctx, input: ConvertInput): Promise<Converted> {
  await requireAgent(ctx);
  const checks = new Checks();
  const from = checks.oneOf('from', input.from, TOOL_FORMATS);
  const to = checks.oneOf('to', input.to, TOOL_FORMATS);
  if (input.tool === undefined || input.tool === null) checks.fail('tool', 'is required');
  const neutral = from && input.tool !== undefined && input.tool !== null ? readTool(checks, from, input.tool) : undefined;
  checks.done();
  return { from: from!, to: to!, tool: writeTool(neutral!, to!), name: neutral!.name, description: neutral!.description, inputSchema: neutral!.inputSchema };
}

export interface ImportInput extends ConvertInput {
  format?: unknown;
  as?: unknown;
  /** A service's endpoint (https) and price. */
  endpoint?: unknown;
  costPerCall?: unknown;
  /** A skill's runtime and entrypoint (default nodejs, index.js). */
  runtime?: unknown;
  entrypoint?: unknown;
}

export interface Imported {
  kind: 'skill' | 'service';
  id: string;
  name: string;
  /** The service's key, for a service. */
  serviceKey: string | null;
  /** The service's signing secret (shown once), for a service. */
  signingSecret: string | null;
}

/** Imports a tool as a draft skill of the caller's, or a service the caller offers at `endpoint`. */
export async function importTool(ctx: Ctx, input: ImportInput): Promise<Imported> {
  await requireAgent(ctx);
  const checks = new Checks();
  const format = checks.oneOf('format', input.format ?? input.from, TOOL_FORMATS);
  const as = checks.oneOf('as', input.as, ['skill', 'service'] as const, 'skill');
  if (input.tool === undefined || input.tool === null) checks.fail('tool', 'is required');
  const neutral = format && input.tool !== undefined && input.tool !== null ? readTool(checks, format, input.tool) : undefined;
  if (as === 'service' && (input.endpoint === undefined || input.endpoint === null)) checks.fail('endpoint', 'is required to import as a service');
  if (as === 'skill' && input.runtime !== undefined && input.runtime !== null) checks.oneOf('runtime', input.runtime, RUNTIMES);
  checks.done();
  const t = neutral!;
  if (as === 'skill') {
    const schema = JSON.stringify(t.inputSchema, null, 2);
    const skill = await createSkill(ctx, {
      name: skillNameOf(t.name),
      description: t.description || t.title || t.name,
      runtime: input.runtime ?? 'nodejs',
      entrypoint: input.entrypoint ?? 'index.js',
      instructions: `# ${t.title ?? t.name}\n\n${t.description}\n\n## Input\n\n\`\`\`json\n${schema}\n\`\`\`\n`,
    });
    return { kind: 'skill', id: skill.skill.id, name: skill.skill.name, serviceKey: null, signingSecret: null };
  }
  const cost = input.costPerCall ?? 0;
  const capability = skillNameOf(t.name);
  if (!/^[a-z0-9][a-z0-9.-]{0,63}$/.test(capability)) throw new ValidationFailed([{ path: 'tool', message: 'has a name that makes no capability identifier' }]);
  const service = await registerService(ctx, {
    name: (t.title ?? t.name).slice(0, 100),
    description: t.description.length >= 10 ? t.description : `${t.title ?? t.name}: ${t.description || 'imported tool'}`.padEnd(10, '.'),
    endpoint: input.endpoint,
    capabilities: [capability],
    pricingModel: typeof cost === 'number' && cost > 0 ? 'per_call' : 'free',
    costPerCall: cost,
  });
  return { kind: 'service', id: service.id, name: service.name, serviceKey: service.serviceKey, signingSecret: service.signingSecret };
}
