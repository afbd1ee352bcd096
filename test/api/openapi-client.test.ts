// A client generated from the OpenAPI document runs every flow of the specification: the served document is
// turned into TypeScript types with openapi-typescript, a program written against them with openapi-fetch
// (openapi-client/flows.ts) is type-checked with the TypeScript compiler, then run against a real server.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { startReceiver, type Receiver } from '../support/receiver';
import { startServer, type TestServer } from '../support/server';
import type { FlowEnv } from './openapi-client/env';

const ADMIN_KEY = `key_admin_${'F'.repeat(40)}`;
const PROGRAM = path.join(__dirname, 'openapi-client', 'flows.ts');
/** Where the program imports its types from: served to the compiler from memory, never written. */
const TYPES = path.join(__dirname, 'openapi-client', 'openapi-types.ts');
const SPEC_PATHS = path.join(__dirname, '../fixtures/spec-rest-paths.txt');

let server: TestServer;
let provider: Provider;
let receiver: Receiver;
let instance: HttpsTestServer;
let types: string;

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  provider = await startProvider('flows-provider');
  receiver = await startReceiver();
  // An external agent's instance: its agent card, and 200 to anything else (delegations).
  instance = await startHttpsServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        const card = {
          name: 'Weather agent',
          description: 'Knows the weather',
          url: `${instance.url}/a2a`,
          version: '1.0.0',
          protocolVersion: '0.3.0',
          capabilities: {},
          defaultInputModes: ['application/json'],
          defaultOutputModes: ['application/json'],
          skills: [{ id: 'weather-forecast', name: 'Forecast', description: 'A forecast', tags: ['weather'] }],
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { forecast: 'sunny' } }));
    });
  });
  // openapi-typescript's own command line (it is ESM with ESM dependencies, so it runs as its own process).
  const document = path.join(os.tmpdir(), `openapi-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(document, await (await fetch(`${server.url}/api/v1/openapi.json`)).text());
  try {
    const cli = path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    types = (await promisify(execFile)(process.execPath, [cli, document], { maxBuffer: 64 * 1024 * 1024 })).stdout;
  } finally {
    fs.rmSync(document, { force: true });
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  await provider?.close();
  await receiver?.close();
  await instance?.close();
});

/** The program's type errors against the generated types, as `file:line: message`. */
function typeErrors(): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (
    (exists) => (file: string) =>
      file === TYPES || exists(file)
  )(host.fileExists.bind(host));
  host.readFile = ((read) => (file: string) => (file === TYPES ? types : read(file)))(host.readFile.bind(host));
  host.getSourceFile = (file, language, onError, create) =>
    file === TYPES ? ts.createSourceFile(file, types, language) : getSourceFile(file, language, onError, create);
  const program = ts.createProgram([PROGRAM], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where =
      d.file && d.start !== undefined ? `${path.relative(__dirname, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

it('generates types from the document that name every operation of the specification', () => {
  expect(types).toContain('export interface paths');
  expect(types).toContain('"/agents/register"');
  // The capabilities the marketplace serves itself are schemas of their own.
  expect(types).toContain('SupportTicketInput');
  expect(types).toContain('SupportTicketOutput');
});

it('type-checks the flows program against the generated client', () => {
  expect(typeErrors()).toEqual([]);
}, 120_000);

it('runs the flows program against the server: every REST operation of the specification answers as documented', async () => {
  // Loaded by path: the program's types exist only while this test runs (it is outside the project's type check).
  const { runFlows } = require(PROGRAM) as { runFlows: (env: FlowEnv) => Promise<Set<string>> };
  const called = await runFlows({
    baseUrl: server.url,
    adminKey: ADMIN_KEY,
    providerUrl: provider.url,
    receiverUrl: `${receiver.url}/hook`,
    instanceUrl: instance.url,
    instanceCapability: 'weather-forecast',
  });
  const spec = fs
    .readFileSync(SPEC_PATHS, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.replace(/:(\w+)/g, '{$1}'));
  expect(spec.filter((operation) => !called.has(operation))).toEqual([]);
  // The provider was called through the typed execute.
  expect(provider.calls.length).toBeGreaterThanOrEqual(1);
}, 120_000);
