// How TypeScript runs under Node outside the server's bundle (src/start.cjs): in the worker threads (the
// embedded database's and the others', each registering it: a thread does not inherit it), and in tools run
// with `node --require ./src/register.cjs`. Every `.ts` module that require() loads is compiled to
// CommonJS by esbuild as it loads, with the compiler options of tsconfig.json and an inline source map, so
// stack traces name the TypeScript lines.
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
//
// What V8 makes of the packages' JavaScript is kept on disk too (a code cache, node_modules/.cache/
// marketplace-v8): compiling and lazily compiling the 2,000 modules a start loads was most of the time the
// modules took to load, and Node 20 has no compile cache of its own (module.enableCompileCache is Node 22).
// See CodeCache below. Our TypeScript modules stay on Node's own compile, which registers their source maps.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const vm = require('node:vm');

/** A dynamic import() in a module's source (see Module.prototype._compile below). */
const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** Options of Node's own that do not change what V8 compiles (the rest name a cache file of their own). */
const NODE_ONLY_OPTIONS = /^--(require|import|eval|print|cpu-prof|heap-prof|inspect|input-type|enable-source-maps|no-warnings|trace-warnings|title|env-file)/;

/**
 * V8's code cache of each package module, in one file per Node version and set of V8 options: a JSON index
 * (path → hash of the source, offset, length) and the cached data after it, each module's read by its
 * offset when the module loads (the file is never held in memory whole). A module not in the file, or whose
 * source changed, or whose data V8 rejected, is compiled and its cache made once the process has loaded
 * what it loads at start (no module loaded for a second, or at exit), after its code ran: the data then
 * holds the functions the start compiled, not only the top level. The new entries are merged with the file
 * as it is on disk then (another process, or the embedded database's thread, may have written it since)
 * and the whole is written and renamed into place.
 */
class CodeCache {
  constructor(dir) {
    // V8 rejects data made under other flags: a process run with other V8 options keeps a file of its own.
    const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
    const v8Options = options.filter((o) => o.startsWith('--') && !NODE_ONLY_OPTIONS.test(o));
    const flags = hash(JSON.stringify(v8Options)).slice(0, 12);
    this.file = path.join(dir, `${process.version}-${process.arch}-${flags}.bin`);
    this.added = new Map();
    this.timer = undefined;
    this.open();
    process.once('exit', () => this.save());
  }

  open() {
    this.index = {};
    this.fd = undefined;
    try {
      this.fd = fs.openSync(this.file, 'r');
      const read = readIndex(this.fd);
      this.index = read.index;
      this.dataStart = read.dataStart;
    } catch {
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /** The module's cached data when its source is the one cached. */
  get(filename, digest) {
    const entry = this.index[filename];
    if (!entry || entry[0] !== digest || this.fd === undefined) return undefined;
    const data = Buffer.allocUnsafe(entry[2]);
    try {
      return fs.readSync(this.fd, data, 0, entry[2], this.dataStart + entry[1]) === entry[2] ? data : undefined;
    } catch {
      return undefined;
    }
  }

  add(filename, digest, script) {
    this.added.set(filename, { digest, script });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(), 1_000).unref();
  }

  save() {
    clearTimeout(this.timer);
    if (!this.added.size) return;
    const added = this.added;
    this.added = new Map();
    try {
      const parts = [];
      const index = {};
      let offset = 0;
      const put = (filename, digest, data) => {
        index[filename] = [digest, offset, data.length];
        parts.push(data);
        offset += data.length;
      };
      for (const [filename, { digest, script }] of added) put(filename, digest, script.createCachedData());
      let fd;
      try {
        fd = fs.openSync(this.file, 'r');
        const current = readIndex(fd);
        for (const [filename, [digest, at, length]] of Object.entries(current.index)) {
          if (index[filename] || !fs.existsSync(filename)) continue;
          const data = Buffer.allocUnsafe(length);
          if (fs.readSync(fd, data, 0, length, current.dataStart + at) === length) put(filename, digest, data);
        }
      } catch {
        // no cache file yet, or an unreadable one: this process's entries make the new one
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
      const header = Buffer.from(JSON.stringify(index));
      const size = Buffer.alloc(4);
      size.writeUInt32LE(header.length);
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const partial = `${this.file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
      fs.writeFileSync(partial, Buffer.concat([size, header, ...parts]));
      fs.renameSync(partial, this.file);
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.open();
    } catch {
      // A cache that cannot be written costs V8's compiling each start, nothing else.
    }
  }
}

function readIndex(fd) {
  const size = Buffer.alloc(4);
  if (fs.readSync(fd, size, 0, 4, 0) !== 4) throw new Error('no index');
  const header = Buffer.allocUnsafe(size.readUInt32LE(0));
  if (fs.readSync(fd, header, 0, header.length, 4) !== header.length) throw new Error('a cut index');
  return { index: JSON.parse(header.toString('utf8')), dataStart: 4 + header.length };
}

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
  // Prisma's generated client loads its query compiler with import(): 4.4 MB of base64 in a CommonJS
  // module, which the ES module loader read, scanned for exports and kept for good, source and string (9 MiB
  // of an idle server's heap). Compiled to require() there, it is one CommonJS load like any other.
  const generatedDir = path.join(root, 'src', 'db', 'generated') + path.sep;
  const GENERATED_OPTIONS = { supported: { 'dynamic-import': false } };
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
  const codeCache = new CodeCache(path.join(root, 'node_modules', '.cache', 'marketplace-v8'));
  // A CommonJS module of a package, compiled as Node compiles it (the same wrapper, `require` and
  // arguments) but through a vm.Script, which takes V8's code cache and can make one.
  const compileModule = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, format) {
    // A module with a dynamic import() too: a script's way of loading it (vm.constants.
    // USE_MAIN_CONTEXT_DEFAULT_LOADER) does not survive V8's cache in Node 20 (a script compiled from cached
    // data in another process or thread throws "A dynamic import callback was not specified").
    if (format === 'module' || filename.endsWith('.ts') || DYNAMIC_IMPORT.test(content)) return compileModule.call(this, content, filename, format);
    const digest = crypto.createHash('sha1').update(content).digest('base64');
    const cachedData = codeCache.get(filename, digest);
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      // Not a script (an ES module's syntax, or an error): Node's own compile loads it or reports it.
      return compileModule.call(this, content, filename, format);
    }
    if (!cachedData || script.cachedDataRejected) codeCache.add(filename, digest, script);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return Reflect.apply(wrapper, this.exports, [this.exports, requireOf(this), this, filename, path.dirname(filename)]);
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
    const { code } = esbuild.transformSync(source, { ...options, ...(filename.startsWith(generatedDir) ? GENERATED_OPTIONS : {}), sourcefile: filename });
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

/** `require` as Node gives it to a module's code (lib/internal/modules/helpers.js, makeRequireFunction). */
function requireOf(mod) {
  const require = function require(id) {
    return mod.require(id);
  };
  require.resolve = function resolve(request, options) {
    return Module._resolveFilename(request, mod, false, options);
  };
  require.resolve.paths = function paths(request) {
    return Module._resolveLookupPaths(request, mod);
  };
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
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
