// `npm run schema:print` also writes protocols/generated/mcp-tools.json: the MCP tool list as
// tools/list answers it (names, descriptions, input and output schemas, and each tool's toolset in
// `_meta["marketplace/toolset"]`), committed so that a change to a tool shows in review; a test fails when
// it is stale.
import fs from 'node:fs';
import path from 'node:path';
import { compileRoutes } from '../rest/runner';
import { routes } from '../rest/routes';
import { schema } from '../schema/index';
import { toolSpecs } from './mcp-tools';
import { compileTools } from './tools';

export const TOOL_LIST_PATH = path.join(__dirname, 'generated', 'mcp-tools.json');

export function currentToolList(): string {
  const tools = compileTools(schema, toolSpecs, compileRoutes(schema, routes));
  return `${JSON.stringify({ tools: tools.map((t) => t.definition) }, null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(TOOL_LIST_PATH, currentToolList());
  console.log(`wrote ${path.relative(process.cwd(), TOOL_LIST_PATH)}`);
}
