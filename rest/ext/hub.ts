// The hub (spec §4.13): converting and importing agent cards and manifests.
import { bucket, from, type Route } from '../route';

export const hubRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/hub/convert',
    bucket: bucket('ext_hub_convert', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Convert a tool description between formats',
    description:
      '`from` and `to` (`mcp`, `openapi`, `a2a`, `skill_md`) and `tool` (an MCP tool, an OpenAPI operation, an A2A skill, or the SKILL.md text) required. Any pair converts, keeping the name, description and input schema: A2A skills carry the schema in `inputSchema` beside the standard fields, SKILL.md in `metadata.input_schema` (and a name that is not an Agent Skills name in `metadata.tool_name`).',
    document: /* GraphQL */ `
      mutation ConvertTool($input: ConvertToolInput!) {
        convertTool(input: $input) {
          converted
          from
          to
          tool
          name
          description
          input_schema: inputSchema
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/hub/import',
    bucket: bucket('ext_hub_import', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Import a tool description as a skill or a service',
    description:
      '`format` and `tool` required. `as: skill` (the default): a draft skill of yours (`runtime` default nodejs, `entrypoint` default index.js), its instructions carrying the input schema. `as: service`: a service of yours at `endpoint` (HTTPS) offering the tool’s name as its capability, at `cost_per_call` (default free); its `signing_secret` is shown only here.',
    errors: [409],
    document: /* GraphQL */ `
      mutation ImportTool($input: ImportToolInput!) {
        importTool(input: $input) {
          imported
          kind
          id
          name
          service_key: serviceKey
          signing_secret: signingSecret
        }
      }
    `,
    variables: { input: from.body },
  },
];
