// How the server's TypeScript runs under Node: `node --require ./src/register.cjs src/server.ts` (the
// command in src/server-command.ts), and the embedded database's worker thread, which registers it again
// (a thread does not inherit it). Every `.ts` module that require() loads is compiled to CommonJS by esbuild
// as it loads, with the compiler options of tsconfig.json and an inline source map, so stack traces name
// the TypeScript lines.
//
// Not tsx, which the scripts still use: tsx always compiles with esbuild's `keepNames`, which wraps every
// function whose name JavaScript infers (`const f = () => …`, `{ key: () => … }`) in a `__name(fn, 'f')`
// call, an Object.defineProperty made each time the closure is created: for example four times in every
// request's context. Nothing is renamed when compiling one module at a time, so the names are the ones
// JavaScript infers anyway. Without it `GET /agents/me` served about 15% more requests a second
// (docs/benchmarks.md). The tests compile with SWC, which adds no such call either.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const esbuild = require('esbuild');

if (!Module._extensions['.ts']) {
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'tsconfig.json'), 'utf8'));
  const options = {
    loader: 'ts',
    format: 'cjs',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    tsconfigRaw: { compilerOptions },
  };
  process.setSourceMapsEnabled(true);
  Module._extensions['.ts'] = (module, filename) => {
    const { code } = esbuild.transformSync(fs.readFileSync(filename, 'utf8'), { ...options, sourcefile: filename });
    module._compile(code, filename);
    module.exports = settled(module.exports);
  };
}

/**
 * A loaded module's exports as plain values. esbuild's CommonJS keeps ES modules' live bindings as two
 * getters per export (`module.exports` copies the module's export object with `get: () => from[key]`, which
 * reads `get: () => value`), so every use of an imported name, `import_ids.newUuid(…)`, called both, the
 * first through a keyed load that every module's getters share (megamorphic). Once the module has run,
 * nothing of ours reassigns an export (no `export let`/`export var`: a unit test holds the sources to it),
 * so its values are final and a plain object serves them at the cost of an ordinary property load. A
 * module that requires this one while it is still loading (an import cycle) keeps the getters, which stay
 * right; an export still uninitialized when the module finishes (a getter that throws) keeps its getter.
 */
function settled(exports) {
  if (exports === null || typeof exports !== 'object' || !exports.__esModule) return exports;
  const plain = {};
  Object.defineProperty(plain, '__esModule', { value: true });
  for (const key of Object.keys(exports)) {
    try {
      plain[key] = exports[key];
    } catch {
      Object.defineProperty(plain, key, Object.getOwnPropertyDescriptor(exports, key));
    }
  }
  return plain;
}
