// The tool hub (spec §4.13): tool descriptions converted between MCP, OpenAPI, A2A and SKILL.md, or
// imported as a skill or a service.
import * as hub from '../../src/domain/ext/hub';
import { builder } from '../builder';

const ToolFormat = builder.enumType('ToolFormat', {
  description: '`mcp` (an MCP tool), `openapi` (an OpenAPI operation), `a2a` (an A2A skill), `skill_md` (an Agent Skills SKILL.md)',
  values: hub.TOOL_FORMATS,
});

const Converted = builder.objectRef<hub.Converted>('ConvertedTool').implement({
  fields: (t) => ({
    converted: t.boolean({ resolve: () => true }),
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    tool: t.field({ type: 'JSON', description: 'The tool in the target format (SKILL.md as a string)', resolve: (c) => c.tool }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    inputSchema: t.field({ type: 'JSON', resolve: (c) => c.inputSchema }),
  }),
});

const ConvertInput = builder.inputType('ConvertToolInput', {
  fields: (t) => ({
    from: t.field({ type: ToolFormat, required: true }),
    to: t.field({ type: ToolFormat, required: true }),
    tool: t.field({ type: 'JSON', required: true, description: 'The tool: an object, or the SKILL.md text' }),
  }),
});

builder.mutationField('convertTool', (t) =>
  t.field({
    type: Converted,
    description: 'Converts a tool description between MCP, OpenAPI, A2A and SKILL.md (name, description and input schema kept)',
    auth: 'agent',
    args: { input: t.arg({ type: ConvertInput, required: true }) },
    resolve: (_r, { input }, ctx) => hub.convertTool(ctx, input),
  }),
);

const Imported = builder.objectRef<hub.Imported>('ImportedTool').implement({
  fields: (t) => ({
    imported: t.boolean({ resolve: () => true }),
    kind: t.exposeString('kind', { description: '`skill` or `service`' }),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    serviceKey: t.exposeString('serviceKey', { nullable: true }),
    signingSecret: t.exposeString('signingSecret', { nullable: true, description: "A service's signing secret, shown only here" }),
  }),
});

const ImportInput = builder.inputType('ImportToolInput', {
  fields: (t) => ({
    format: t.field({ type: ToolFormat, required: true }),
    tool: t.field({ type: 'JSON', required: true }),
    as: t.string({ description: '`skill` (a draft skill of yours; the default) or `service` (offered at `endpoint`)' }),
    endpoint: t.string({ description: "A service's HTTPS endpoint" }),
    costPerCall: t.int({ description: "A service's price, integer cents (default 0)" }),
    runtime: t.string({ description: "A skill's runtime (default nodejs)" }),
    entrypoint: t.string({ description: "A skill's entrypoint (default index.js)" }),
  }),
});

builder.mutationField('importTool', (t) =>
  t.field({
    type: Imported,
    description: 'Imports a tool description as a skill or a service of yours',
    auth: 'agent',
    args: { input: t.arg({ type: ImportInput, required: true }) },
    resolve: (_r, { input }, ctx) => hub.importTool(ctx, input),
  }),
);
