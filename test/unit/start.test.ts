// src/start.cjs: the positions it keeps of a bundle's code name the same original line and column as a
// standard source map reader (Node's module.SourceMap) at every mapped position, and a stack trace thrown
// from a bundle names the TypeScript source's line.
import fs from 'node:fs';
import Module, { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { buildSync } from 'esbuild';

const start = require('../../src/start.cjs') as {
  positionsOf(map: { sources: string[]; mappings: string }, mapDir: string): Buffer;
  Positions: new (file: string) => { original(line: number, column: number): { source: string; line: number; column: number } | undefined };
  mapStackTraces(bundle: string, positions: unknown, ErrorClass?: ErrorConstructor): void;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-test-'));
const entry = path.join(dir, 'entry.ts');
const helper = path.join(dir, 'helper.ts');
fs.writeFileSync(
  helper,
  [
    '// a helper',
    'export function fail(reason: string): never {',
    '  const message: string = `failed: ${reason}`;',
    '  throw new Error(message);',
    '}',
    '',
  ].join('\n'),
);
fs.writeFileSync(
  entry,
  [
    'import { fail } from "./helper";',
    '',
    'interface Call { reason: string }',
    'export function run(call: Call): void {',
    '  fail(call.reason);',
    '}',
    '',
  ].join('\n'),
);
const bundle = path.join(dir, 'bundle.cjs');
const built = buildSync({
  entryPoints: [entry],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile: bundle,
  sourcemap: 'external',
  sourcesContent: false,
  write: false,
});
const code = built.outputFiles.find((f) => f.path === bundle)!.text;
const map = JSON.parse(built.outputFiles.find((f) => f.path === `${bundle}.map`)!.text);
fs.writeFileSync(bundle, code);
const positionsFile = path.join(dir, 'bundle.positions');
fs.writeFileSync(positionsFile, start.positionsOf(map, dir));
// The bundle runs as src/start.cjs runs it, in Node's own realm (not the test's), whose Error this is.
const NodeError = vm.runInThisContext('Error') as ErrorConstructor;
const previous = NodeError.prepareStackTrace;

afterAll(() => {
  NodeError.prepareStackTrace = previous;
  fs.rmSync(dir, { recursive: true, force: true });
});

it('finds at every mapped position the original that a standard source map reader finds', () => {
  const reference = new SourceMap(map);
  const positions = new start.Positions(positionsFile);
  const lines = code.split('\n');
  let checked = 0;
  for (let line = 0; line < lines.length; line++) {
    for (let column = 0; column < lines[line].length; column += 3) {
      const expected = reference.findEntry(line, column) as { generatedLine?: number; originalSource?: string; originalLine?: number; originalColumn?: number };
      // Node's reader answers the nearest segment at or before the position, on that line or an earlier one.
      if (expected.generatedLine !== line || !expected.originalSource) continue;
      expect(positions.original(line + 1, column + 1)).toEqual({
        source: path.resolve(dir, expected.originalSource.replace(/^file:\/\//, '')),
        line: expected.originalLine! + 1,
        column: expected.originalColumn! + 1,
      });
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(20);
});

it("names the TypeScript source's lines in a stack thrown from the bundle", () => {
  start.mapStackTraces(bundle, new start.Positions(positionsFile), NodeError);
  const mod = new Module(bundle);
  new vm.Script(Module.wrap(code), { filename: bundle }).runInThisContext().call(mod.exports, mod.exports, require, mod, bundle, dir);
  const loaded = mod.exports as { run(call: { reason: string }): void };
  let stack = '';
  try {
    loaded.run({ reason: 'on purpose' });
  } catch (err) {
    stack = (err as Error).stack!;
  }
  const frames = stack.split('\n');
  expect(frames[0]).toBe('Error: failed: on purpose');
  expect(frames[1]).toContain(`${helper}:4:9`);
  expect(frames[2]).toContain(`${entry}:5:3`);
  expect(stack).not.toContain(bundle);
});
