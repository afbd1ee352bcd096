// `npm start`: the server's process (app/server.ts) run from one bundle of its modules, since loading them one by
// one (finding, reading and compiling each file) was most of a start (docs/operations.md, Start). esbuild makes
// it at install and again when a start finds a source or node_modules changed since its stamp; it lives in
// node_modules/.cache/marketplace-server beside V8's code cache and the positions stack traces map back through.
// Worker threads load their modules through src/register.cjs, as the tests and tools do.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const ROOT = path.join(__dirname, '..');
const ENTRY = path.join(ROOT, 'app', 'server.ts');
const DIR = path.join(ROOT, 'node_modules', '.cache', 'marketplace-server');
const STAMP = path.join(DIR, 'stamp.json');
/** npm's record of what node_modules holds, rewritten by every install. */
const PACKAGES = path.join(ROOT, 'node_modules', '.package-lock.json');
/**
 * Packages our code requires at their first use (src/platform/lazy.ts, or `require` in the functions that need
 * them), left out so they cost nothing until then: a bundle's whole source stays on the heap for V8's later
 * compiles (docs/operations.md, Start). A build fails if one does not resolve from the bundle's directory.
 */
const LAZY = [
  '@a2a-js/sdk',
  '@a2a-js/sdk/*',
  '@graphql-yoga/redis-event-target',
  '@modelcontextprotocol/sdk/*',
  '@mozilla/readability',
  'ioredis',
  'linkedom',
  'openai',
  'undici',
  'viem',
  'viem/*',
  'wink-eng-lite-web-model',
  'wink-nlp',
  'wink-nlp/*',
  'yaml',
];
/**
 * And the packages that load files beside their code at run time (PGlite its WebAssembly and data, the schema
 * engine its WebAssembly), which only worker threads use (loaded there as they are).
 */
const EXTERNAL = ['@electric-sql/pglite', '@electric-sql/pglite/*', '@prisma/schema-engine-wasm', '@prisma/schema-engine-wasm/*', 'esbuild', ...LAZY];

/** What a bundle's files are called: the stamp names the build, and each file carries its id. */
const fileOf = (id, ext) => path.join(DIR, `server-${id}${ext}`);

/** The stamp of the current bundle when every file it was made from is as it was then; else undefined. */
function freshStamp() {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
  if (stamp.builder !== builderId() || stamp.root !== ROOT) return undefined;
  const same = (file, [mtimeMs, size]) => {
    try {
      const st = fs.statSync(path.join(ROOT, file));
      return st.mtimeMs === mtimeMs && st.size === size;
    } catch {
      return false;
    }
  };
  if (!same(path.relative(ROOT, PACKAGES), stamp.packages)) return undefined;
  for (const [file, seen] of Object.entries(stamp.files)) if (!same(file, seen)) return undefined;
  if (!fs.existsSync(fileOf(stamp.id, '.cjs')) || !fs.existsSync(fileOf(stamp.id, '.positions'))) return undefined;
  return stamp;
}

/** What makes the bundle besides the sources: Node's version, esbuild's and this file. */
let builder;
function builderId() {
  builder ??= hash([process.version, esbuildVersion(), fs.readFileSync(__filename, 'utf8')].join('\0')).slice(0, 16);
  return builder;
}

function esbuildVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
  } catch {
    return 'none';
  }
}

const hash = (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The size and modification time of a file, as the stamp keeps them. */
function seen(file) {
  const st = fs.statSync(file);
  return [st.mtimeMs, st.size];
}

/**
 * Each module keeps its own `__dirname` and `__filename` in the bundle (where they would otherwise be the
 * bundle's): declared at the start of its first line, after a shebang and a 'use strict' directive, so no
 * line moves.
 */
const filePaths = {
  name: 'file-paths',
  setup(build) {
    build.onLoad({ filter: /\.(ts|js|cjs|mjs)$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const head = /^(#![^\n]*\n)?((\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*(['"])use strict\4;?)?/.exec(text)[0].length;
      const declared = `;var __dirname = ${JSON.stringify(path.dirname(args.path))}, __filename = ${JSON.stringify(args.path)}; `;
      return {
        contents: text.slice(0, head) + declared + text.slice(head),
        loader: args.path.endsWith('.ts') ? 'ts' : 'js',
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/** Bundles the server and writes the bundle, its positions and its stamp; returns the stamp. */
async function build() {
  const esbuild = require('esbuild');
  const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8'));
  const packages = seen(PACKAGES);
  const outfile = path.join(DIR, 'server.cjs');
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    // A dynamic import() survives no code cache in Node 20 (see src/register.cjs): every one is a require().
    supported: { 'dynamic-import': false },
    external: EXTERNAL,
    tsconfigRaw: { compilerOptions },
    sourcemap: 'external',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [filePaths],
  });
  // ASCII throughout, so a start reads it as latin1, quicker to decode than UTF-8: esbuild escapes
  // every other character of the code itself, and what remains is in comments, where each UTF-16 unit
  // becomes a '?' (no column moves).
  // What we left out must load from where the bundle runs (node_modules/.cache/marketplace-server). (esbuild
  // leaves out on its own what it cannot find, such as pg's optional pg-native, required inside a try.)
  const from = Module.createRequire(outfile);
  const ours = (p) => EXTERNAL.some((e) => (e.endsWith('/*') ? p.startsWith(e.slice(0, -1)) : p === e));
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || !ours(imported.path)) continue;
      try {
        from.resolve(imported.path);
      } catch {
        throw new Error(`${imported.path} is left out of the bundle but does not resolve from ${DIR}`);
      }
    }
  }
  const code = result.outputFiles.find((f) => f.path === outfile).text.replace(/[^\x00-\x7f]/g, '?');
  const map = JSON.parse(result.outputFiles.find((f) => f.path === `${outfile}.map`).text);
  const files = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input.split('/').includes('node_modules')) continue;
    files[input] = seen(path.join(ROOT, input));
  }
  files['tsconfig.json'] = seen(path.join(ROOT, 'tsconfig.json'));
  const id = hash(code).slice(0, 16);
  const stamp = { id, builder: builderId(), root: ROOT, packages, files };
  fs.mkdirSync(DIR, { recursive: true });
  writeWhole(fileOf(id, '.cjs'), code);
  writeWhole(fileOf(id, '.positions'), positionsOf(map, path.dirname(outfile)));
  writeWhole(STAMP, JSON.stringify(stamp));
  // The bundles before this one, and what was made of them.
  for (const name of fs.readdirSync(DIR)) if (name.startsWith('server-') && !name.startsWith(`server-${id}`)) fs.rmSync(path.join(DIR, name), { force: true });
  return stamp;
}

/** Written whole, then renamed: another process reading the file at the same time sees all of it or none. */
function writeWhole(file, data) {
  const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, data);
  fs.renameSync(partial, file);
}

// The positions file: a header (four u32: 1, the generated lines, where the sources' JSON starts, its length),
// then for each generated line the index of its first segment (u32, one more at the end), then the segments
// (four i32 each: generated column, source, original line, original column, all from zero; source -1 where
// the code has no original), then the sources' absolute paths as JSON. A stack frame reads its line's
// segments alone, so a process holds none of it.
const HEADER_BYTES = 16;
const SEGMENT_BYTES = 16;

/** The segments of a source map (version 3), decoded from its base64 VLQ mappings. */
function positionsOf(map, mapDir) {
  const digits = new Int8Array(128).fill(-1);
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (digits[c.charCodeAt(0)] = i));
  const mappings = map.mappings;
  const lineStarts = [0];
  const segments = [];
  let at = 0;
  let source = 0;
  let line = 0;
  let column = 0;
  let generated = 0;
  const field = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const digit = digits[mappings.charCodeAt(at++)];
      value += (digit & 31) << shift;
      if (!(digit & 32)) break;
      shift += 5;
    }
    return value & 1 ? -(value >>> 1) : value >>> 1;
  };
  while (at < mappings.length) {
    const c = mappings.charCodeAt(at);
    if (c === 59 /* ; */) {
      at++;
      generated = 0;
      lineStarts.push(segments.length / 4);
      continue;
    }
    if (c === 44 /* , */) {
      at++;
      continue;
    }
    generated += field();
    const next = mappings.charCodeAt(at);
    if (at >= mappings.length || next === 44 || next === 59) {
      segments.push(generated, -1, 0, 0);
      continue;
    }
    source += field();
    line += field();
    column += field();
    const after = mappings.charCodeAt(at);
    if (at < mappings.length && after !== 44 && after !== 59) field(); // the name's index
    segments.push(generated, source, line, column);
  }
  lineStarts.push(segments.length / 4);
  const sources = Buffer.from(JSON.stringify(map.sources.map((s) => path.resolve(mapDir, s))));
  const lines = lineStarts.length - 1;
  const out = Buffer.alloc(HEADER_BYTES + lineStarts.length * 4 + segments.length * 4 + sources.length);
  const sourcesAt = HEADER_BYTES + lineStarts.length * 4 + segments.length * 4;
  out.writeUInt32LE(1, 0);
  out.writeUInt32LE(lines, 4);
  out.writeUInt32LE(sourcesAt, 8);
  out.writeUInt32LE(sources.length, 12);
  lineStarts.forEach((v, i) => out.writeUInt32LE(v, HEADER_BYTES + i * 4));
  const segmentsAt = HEADER_BYTES + lineStarts.length * 4;
  segments.forEach((v, i) => out.writeInt32LE(v, segmentsAt + i * 4));
  sources.copy(out, sourcesAt);
  return out;
}

/** Finds the original of a position in the bundle (line and column from one), reading only its line's segments. */
class Positions {
  constructor(file) {
    this.file = file;
    this.fd = undefined;
    this.sources = undefined;
  }

  open() {
    if (this.fd !== undefined) return;
    this.fd = fs.openSync(this.file, 'r');
    const header = this.read(0, HEADER_BYTES);
    this.lines = header.readUInt32LE(4);
    this.sources = JSON.parse(this.read(header.readUInt32LE(8), header.readUInt32LE(12)).toString('utf8'));
  }

  read(offset, length) {
    const buffer = Buffer.alloc(length);
    fs.readSync(this.fd, buffer, 0, length, offset);
    return buffer;
  }

  /** `{ source, line, column }` (line and column from one), or undefined where the code has no original. */
  original(line, column) {
    this.open();
    if (line < 1 || line > this.lines) return undefined;
    const bounds = this.read(HEADER_BYTES + (line - 1) * 4, 8);
    const first = bounds.readUInt32LE(0);
    const count = bounds.readUInt32LE(4) - first;
    if (!count) return undefined;
    const segmentsAt = HEADER_BYTES + (this.lines + 1) * 4;
    const segments = this.read(segmentsAt + first * SEGMENT_BYTES, count * SEGMENT_BYTES);
    let found = -1;
    for (let i = 0; i < count && segments.readInt32LE(i * SEGMENT_BYTES) <= column - 1; i++) found = i;
    if (found < 0) return undefined;
    const source = segments.readInt32LE(found * SEGMENT_BYTES + 4);
    if (source < 0) return undefined;
    return {
      source: this.sources[source],
      line: segments.readInt32LE(found * SEGMENT_BYTES + 8) + 1,
      column: segments.readInt32LE(found * SEGMENT_BYTES + 12) + 1,
    };
  }
}

/**
 * Stack traces name the sources' lines, as Node's own source maps would: each frame in the bundle is
 * replaced by its original, found when a stack is first read (error.stack). `ErrorClass` is the realm's
 * Error (a test runs the bundle in another realm than its own).
 */
function mapStackTraces(bundle, positions, ErrorClass = Error) {
  const frameOf = (frame) => {
    const text = String(frame);
    if (frame.getFileName() !== bundle) return text;
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    let original;
    try {
      original = positions.original(line, column);
    } catch {
      return text;
    }
    return original ? text.replace(`${bundle}:${line}:${column}`, `${original.source}:${original.line}:${original.column}`) : text;
  };
  ErrorClass.prepareStackTrace = (error, frames) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return frames.length ? `${head}\n    at ${frames.map(frameOf).join('\n    at ')}` : head;
  };
}

/**
 * Runs the bundle as Node runs a CommonJS module, compiled through a vm.Script that takes V8's code cache.
 * A start without one (or whose cache V8 refused) writes it once the modules have run.
 */
function run(stamp) {
  const file = fileOf(stamp.id, '.cjs');
  const cacheFile = fileOf(stamp.id, `-${v8Flags()}.v8`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const source = fs.readFileSync(file, 'latin1');
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const refused = !cachedData || script.cachedDataRejected;
  mapStackTraces(file, new Positions(fileOf(stamp.id, '.positions')));
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  mod.loaded = true;
  script.runInThisContext({ displayErrors: true }).call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  // Made now, when the modules have run (so it holds the functions they compiled, not only the top level)
  // and before the server changes V8's flags at run time (app/server.ts, src/platform/settle.ts): V8 refuses
  // data made under flags other than a new process's, so a cache made later was refused at every start.
  if (refused) {
    try {
      writeWhole(cacheFile, script.createCachedData());
    } catch {
      // A cache that cannot be written costs the compile each start, nothing else.
    }
  }
}

/** V8 refuses a code cache made under other flags: each set of V8 options keeps its own. */
function v8Flags() {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const v8Options = options.filter(
    (o) =>
      o.startsWith('--') && !/^--(require|import|eval|print|cpu-prof|heap-prof|inspect|enable-source-maps|no-warnings|trace-warnings|title|env-file)/.test(o),
  );
  return hash(JSON.stringify(v8Options)).slice(0, 8);
}

/**
 * The web console's build (console/build.cjs: Vite, docs/console.md), made again when its sources changed
 * since the last: in a process of its own, so that Vite never loads into the server's. A failed build is
 * said and left: /console answers 503 until it is built, and the API starts regardless.
 */
function ensureConsole() {
  const builder = path.join(ROOT, 'console', 'build.cjs');
  let fresh;
  try {
    fresh = require(builder).fresh();
  } catch {
    // No console in this tree.
    return;
  }
  if (fresh) return;
  process.stderr.write('building the console (its sources changed since the last build)\n');
  const run = require('node:child_process').spawnSync(process.execPath, [builder], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) process.stderr.write('the console could not be built: /console answers 503 until `npm run console:build` succeeds\n');
}

async function main() {
  if (process.argv.includes('--build')) {
    if (!freshStamp()) await build();
    ensureConsole();
    return;
  }
  ensureConsole();
  let stamp = freshStamp();
  if (!stamp) {
    const started = Date.now();
    process.stderr.write("bundling the server's modules (their sources changed since the last bundle)\n");
    stamp = await build();
    process.stderr.write(`bundled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  run(stamp);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`the server could not start: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
}

// For the tests (test/unit/start.test.ts).
module.exports = { positionsOf, Positions, mapStackTraces, LAZY };
