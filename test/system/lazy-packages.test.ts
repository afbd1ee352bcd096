// The server's bundle (src/start.cjs) leaves out the packages our code requires at their first use: a start
// loads none of them, and a request that needs one loads it from node_modules and is answered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchServer, type Running } from '../support/process';

const { LAZY } = require('../../src/start.cjs') as { LAZY: string[] };
const packages = [...new Set(LAZY.map((p) => p.replace(/\/\*$/, '')))];

let server: Running;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-packages-'));
  const preload = path.resolve(__dirname, '../fixtures/loaded-packages.cjs');
  server = await launchServer(dataDir, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim() });
}, 90_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The packages the server's main thread has loaded from node_modules, as its preload reports them. */
async function loaded(): Promise<string[]> {
  const report = server.printed(/\{"loadedPackages":(\[[^\]]*\])\}/, 10_000).catch((err: Error) => {
    throw new Error(`the server did not report its packages: ${err.message}`);
  });
  server.child.kill('SIGUSR2');
  return JSON.parse((await report)[1]) as string[];
}

it('loads none of the packages left out of its bundle to start and answer /health', async () => {
  expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
  expect((await loaded()).filter((p) => packages.includes(p))).toEqual([]);
});

it("loads MCP's SDK from node_modules at the first MCP request, and answers it", async () => {
  const res = await fetch(`http://127.0.0.1:${server.port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'lazy-packages', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('serverInfo');
  expect(await loaded()).toContain('@modelcontextprotocol/sdk');
});
