// How TypeScript runs under Node outside the server's bundle (src/start.cjs): in worker threads (each registers
// it; a thread does not inherit it) and in tools run with `node --require ./src/register.cjs`. esbuild compiles
// each `.ts` module to CommonJS as it loads, without tsx's always-on `keepNames`, whose wrappers cost every
// closure made (docs/benchmarks.md, The bare `node:http` reference). Its output and V8's code cache of the
// packages are kept on disk so an unchanged start compiles nothing (docs/operations.md, Footprint).
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
 * V8's code cache of the package modules, one file per Node version and V8 options: an index and the data,
 * each module's read by its offset. Data is made once the start has run (no module loaded for a second, or at
 * exit), so it holds the functions the start compiled, and merged with the file as another process left it.
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
  // Prisma's generated client loads its query compiler with import(), and the ES module loader kept that
  // module's source beside its string for good; compiled to require(), it is one CommonJS load like any other.
  const generatedDir = path.join(root, 'src', 'db', 'generated') + path.sep;
  const GENERATED_OPTIONS = { supported: { 'dynamic-import': false } };
  // What a compiled module depends on besides its source: the compiler and how it is asked.
  const compilerVersion = require(path.join(path.dirname(require.resolve('esbuild')), '..', 'package.json')).version;
  const fingerprint = JSON.stringify([compilerVersion, options, fs.readFileSync(__filename, 'utf8')]);
  let esbuild;
  process.setSourceMapsEnabled(true);
  // Node reads and keeps the source map of every module it compiles while source maps are on, the packages'
  // too; stack traces need ours only, so maps stay off while a JavaScript module compiles and runs.
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
 * A loaded module's exports as plain values: esbuild's CommonJS reads each export through two megamorphic getters
 * on every use. Nothing of ours reassigns an export (a unit test holds the sources to it), so once the module has
 * run a plain object serves them; during an import cycle, or for an export still uninitialized, the getters stay.
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
