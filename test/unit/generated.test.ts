// Generated artefacts are committed and must match their sources: the printed SDL, the MCP tool list and
// codegen's types.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { currentSdl, SDL_PATH } from '../../schema/print';
import { currentToolList, TOOL_LIST_PATH } from '../../protocols/print-tools';
import { START_SCRIPT } from '../../src/server-command';

const root = path.resolve(__dirname, '../..');

it('schema/schema.graphql matches the Pothos schema (run `npm run schema:print`)', () => {
  expect(fs.readFileSync(SDL_PATH, 'utf8')).toBe(currentSdl());
});

it('protocols/generated/mcp-tools.json matches the MCP tool table (run `npm run schema:print`)', () => {
  expect(fs.readFileSync(TOOL_LIST_PATH, 'utf8')).toBe(currentToolList());
});

it('rest/generated/operations.ts and console/src/gql/ match their documents (run `npm run codegen`)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codegen-'));
  const out = path.join(dir, 'operations.ts');
  const consoleOut = path.join(dir, 'gql') + path.sep;
  const cli = path.join(root, 'node_modules/@graphql-codegen/cli/cjs/bin.js');
  const run = spawnSync(process.execPath, [cli, '--config', 'codegen.ts'], {
    cwd: root,
    env: { ...process.env, CODEGEN_OUT: out, CODEGEN_CONSOLE_OUT: consoleOut },
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(fs.readFileSync(path.join(root, 'rest/generated/operations.ts'), 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
  const committed = path.join(root, 'console/src/gql');
  expect(fs.readdirSync(committed).sort()).toEqual(fs.readdirSync(consoleOut).sort());
  for (const file of fs.readdirSync(consoleOut))
    expect([file, fs.readFileSync(path.join(committed, file), 'utf8')]).toEqual([file, fs.readFileSync(path.join(consoleOut, file), 'utf8')]);
}, 60_000);

it('npm start runs the server as src/server-command.ts says, as the bench and the process tests do', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.start).toBe(START_SCRIPT);
});
