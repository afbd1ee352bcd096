// The test files' environment: jest's node environment, and what every file of a worker may share. Jest loads
// this module once per worker, outside the files' own module registries, so what it keeps outlives a file.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import NodeEnvironment from 'jest-environment-node';

/** PGlite's WebAssembly, compiled on a worker's first embedded database and handed to every later one. */
let pglite: Promise<WebAssembly.Module> | undefined;

function pgliteModule(): Promise<WebAssembly.Module> {
  const dist = path.dirname(require.resolve('@electric-sql/pglite'));
  pglite ??= WebAssembly.compile(fs.readFileSync(path.join(dist, 'pglite.wasm')));
  return pglite;
}

/**
 * Prisma's query compiler, compiled once per worker: the generated client takes it from this key of its global
 * (src/db/generate.ts), which jest makes anew for every file.
 */
const QUERY_COMPILER = Symbol.for('marketplace.prisma.queryCompiler');
let queryCompiler: Promise<WebAssembly.Module> | undefined;

function queryCompilerModule(): Promise<WebAssembly.Module> {
  const file = path.join(__dirname, '../../src/db/generated/prisma/internal/query_compiler.wasm');
  queryCompiler ??= fs.promises.readFile(file).then((bytes) => WebAssembly.compile(bytes));
  return queryCompiler;
}

/**
 * Every file loads the whole server into a registry of its own, and jest compiles each module again each time:
 * V8's code cache of each module's first compile in this worker spares the later files the parse (a module whose
 * transformed source changed is compiled afresh).
 */
const codeCache = new Map<string, { source: string; data: Buffer }>();
const compileFunction = vm.compileFunction;
vm.compileFunction = function cachedCompileFunction(code, params, options = {}) {
  const { filename } = options;
  if (!filename || options.cachedData || options.produceCachedData) return compileFunction(code, params, options);
  const known = codeCache.get(filename);
  if (known?.source === code) return compileFunction(code, params, { ...options, cachedData: known.data });
  const compiled = compileFunction(code, params, { ...options, produceCachedData: true }) as ReturnType<typeof compileFunction> & { cachedData?: Buffer };
  if (compiled.cachedData) codeCache.set(filename, { source: code, data: compiled.cachedData });
  return compiled;
} as typeof vm.compileFunction;

export default class TestEnvironment extends NodeEnvironment {
  async setup(): Promise<void> {
    await super.setup();
    this.global.pgliteModule = pgliteModule;
    Object.defineProperty(this.global, QUERY_COMPILER, { get: queryCompilerModule, configurable: true });
  }
}
