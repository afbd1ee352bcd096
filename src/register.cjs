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
//
// What esbuild makes of a module is kept on disk (node_modules/.cache/marketplace-ts), keyed by the module's
// path and a hash of its source, the compiler's version and its options: a start with nothing changed
// compiles nothing and never loads esbuild, whose synchronous API runs a worker thread of its own and a
// service process beside it (about 1.3 s of a 5 s start, and 20 MiB more; docs/operations.md, Footprint).
// A module whose source changed is compiled again and replaces its old entry, so the cache holds one
// entry a module. Where the cache cannot be written (a read-only install), modules compile as before.
// The source maps carry no copy of the sources (sourcesContent): stack traces need only the mappings, and
// every module's map stays in memory for the life of the process.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

if (!Module._extensions['.ts']) {
  const root = path.join(__dirname, '..');
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  const options = {
    loader: 'ts',
    format: 'cjs',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    sourcesContent: false,
    tsconfigRaw: { compilerOptions },
  };
  const cacheDir = path.join(root, 'node_modules', '.cache', 'marketplace-ts');
  // What a compiled module depends on besides its source: the compiler and how it is asked.
  const compilerVersion = require(path.join(path.dirname(require.resolve('esbuild')), '..', 'package.json')).version;
  const fingerprint = JSON.stringify([compilerVersion, options, fs.readFileSync(__filename, 'utf8')]);
  let esbuild;
  process.setSourceMapsEnabled(true);
  // Node reads the source map of every module it compiles while source maps are on, our packages' too (a
  // .map file each, parsed and kept for the life of the process: about 0.2 s of a start). Stack traces
  // need ours only, so maps stay off while a JavaScript module compiles and runs.
  const compileJavaScript = Module._extensions['.js'];
  Module._extensions['.js'] = (module, filename) => {
    process.setSourceMapsEnabled(false);
    try {
      compileJavaScript(module, filename);
    } finally {
      process.setSourceMapsEnabled(true);
    }
  };
  Module._extensions['.ts'] = (module, filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    module._compile(compiled(filename, source), filename);
    module.exports = settled(module.exports);
  };

  /** The module's CommonJS: from the cache when its source was compiled before, else esbuild's (then kept). */
  function compiled(filename, source) {
    // One entry a module path (its older versions are removed when it is replaced).
    const prefix = `${hash(filename).slice(0, 16)}-`;
    const entry = path.join(cacheDir, `${prefix}${hash(fingerprint + '\0' + source).slice(0, 32)}.js`);
    try {
      return fs.readFileSync(entry, 'utf8');
    } catch {
      // not compiled yet
    }
    esbuild ??= require('esbuild');
    const { code } = esbuild.transformSync(source, { ...options, sourcefile: filename });
    keep(entry, prefix, code);
    return code;
  }

  function keep(entry, prefix, code) {
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      for (const name of fs.readdirSync(cacheDir)) if (name.startsWith(prefix)) fs.rmSync(path.join(cacheDir, name), { force: true });
      // Written whole, then renamed: a process reading the entry at the same time sees all of it or none.
      const partial = `${entry}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
      fs.writeFileSync(partial, code);
      fs.renameSync(partial, entry);
    } catch {
      // A cache that cannot be written costs a compile each start, nothing else.
    }
  }
}

function hash(text) {
  return crypto.createHash('sha256').update(text).digest('hex');
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
