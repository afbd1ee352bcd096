// Builds the console with Vite when its sources changed since the last build (`npm run console:build`, run by
// the postinstall; `npm start` runs it too, as it rebuilds the server's bundle, and the browser tests before
// they start). The build's stamp holds the size and modification time of every source file and of npm's
// record of node_modules, as the server bundle's does (src/start.cjs). `--force` builds regardless.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const CONSOLE = __dirname;
const ROOT = path.join(CONSOLE, '..');
const OUT = process.env.CONSOLE_OUT_DIR ?? path.join(ROOT, 'node_modules', '.cache', 'marketplace-console');
const STAMP = path.join(ROOT, 'node_modules', '.cache', 'marketplace-console.stamp.json');
const PACKAGES = path.join(ROOT, 'node_modules', '.package-lock.json');

/** Every file the build reads of ours: the sources, the page, the configuration. */
function sources() {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.push(full);
    }
  };
  walk(path.join(CONSOLE, 'src'));
  found.push(path.join(CONSOLE, 'index.html'), path.join(CONSOLE, 'vite.config.mts'), __filename);
  return found.sort();
}

function seen(file) {
  const st = fs.statSync(file);
  return [st.mtimeMs, st.size];
}

function stampNow() {
  const files = {};
  for (const file of sources()) files[path.relative(ROOT, file)] = seen(file);
  let packages = null;
  try {
    packages = seen(PACKAGES);
  } catch {
    // No install record (a tree copied by hand): the sources alone decide.
  }
  return { out: OUT, packages, files };
}

/** Whether the build on disk was made from the sources as they are. */
function fresh() {
  try {
    if (!fs.existsSync(path.join(OUT, 'index.html'))) return false;
    return fs.readFileSync(STAMP, 'utf8') === JSON.stringify(stampNow());
  } catch {
    return false;
  }
}

async function build() {
  const stamp = stampNow();
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: path.join(CONSOLE, 'vite.config.mts'), logLevel: 'warn', build: { outDir: OUT } });
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify(stamp));
}

async function main() {
  if (!process.argv.includes('--force') && fresh()) return;
  const started = Date.now();
  await build();
  process.stderr.write(`built the console in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`the console could not be built: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
}

module.exports = { fresh, OUT };
