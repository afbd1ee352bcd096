// The test files' environment: jest's node environment, and what every file of a worker may share. Jest loads
// this module once per worker, outside the files' own module registries, so what it keeps outlives a file.
import fs from 'node:fs';
import path from 'node:path';
import NodeEnvironment from 'jest-environment-node';

/** PGlite's WebAssembly, compiled on a worker's first embedded database and handed to every later one. */
let pglite: Promise<WebAssembly.Module> | undefined;

function pgliteModule(): Promise<WebAssembly.Module> {
  const dist = path.dirname(require.resolve('@electric-sql/pglite'));
  pglite ??= WebAssembly.compile(fs.readFileSync(path.join(dist, 'pglite.wasm')));
  return pglite;
}

export default class TestEnvironment extends NodeEnvironment {
  async setup(): Promise<void> {
    await super.setup();
    this.global.pgliteModule = pgliteModule;
  }
}
