// src/register.cjs, the loader `npm start` runs the server's TypeScript with: a module's exports become
// plain values once it has run (esbuild's live-binding getters cost every use of an imported name), which
// is right only while no module of ours reassigns an export.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('no module of the server reassigns an export (export let / export var, or a let exported by name)', () => {
  const offenders: string[] = [];
  for (const file of ['app', 'src', 'schema', 'rest'].flatMap((d) => sources(join(ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    if (/^\s*export\s+(let|var)\s/m.test(text)) offenders.push(`${relative(ROOT, file)}: export let/var`);
    for (const list of text.matchAll(/^\s*export\s*\{([^}]*)\}\s*;?\s*$/gm)) {
      for (const entry of list[1].split(',')) {
        const local = entry.trim().split(/\s+as\s+/)[0];
        if (local && new RegExp(`^\\s*(let|var)\\s+${local}\\b`, 'm').test(text)) offenders.push(`${relative(ROOT, file)}: exports the let ${local}`);
      }
    }
  }
  expect(offenders).toEqual([]);
});

test('exports are plain values after loading; an import cycle and a late export keep working', () => {
  const dir = mkdtempSync(join(tmpdir(), 'register-'));
  try {
    writeFileSync(join(dir, 'a.ts'), `import { fromB } from './b';\nexport function a(): string { return 'a'; }\nexport const viaB = (): string => fromB();\n`);
    // b requires a while a is still loading: it keeps a's getters and reads them once a has finished.
    writeFileSync(join(dir, 'b.ts'), `import * as A from './a';\nexport const fromB = (): string => \`b sees \${A.a()}\`;\n`);
    writeFileSync(
      join(dir, 'main.ts'),
      [
        `import * as A from './a';`,
        `import * as B from './b';`,
        `const d = Object.getOwnPropertyDescriptor(require('./a'), 'a');`,
        `console.log(JSON.stringify({ plain: d && 'value' in d, esModule: require('./a').__esModule === true, cycle: A.viaB(), b: B.fromB() }));`,
      ].join('\n'),
    );
    const out = execFileSync(process.execPath, ['--require', join(ROOT, 'src', 'register.cjs'), join(dir, 'main.ts')], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ plain: true, esModule: true, cycle: 'b sees a', b: 'b sees a' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a package's modules run the same from V8's code cache, in another process and in a worker thread, dynamic import() included", () => {
  const dir = mkdtempSync(join(tmpdir(), 'register-cache-'));
  try {
    // Under a node_modules of its own, so it is a package module to the loader (the cache is the repository's).
    const pkg = join(dir, 'node_modules', 'cached-pkg');
    execFileSync('mkdir', ['-p', pkg]);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'cached-pkg', main: 'index.js' }));
    writeFileSync(
      join(pkg, 'index.js'),
      [
        `const os = require('node:os');`,
        `exports.facts = () => ({ thisIsExports: this === module.exports, dirname: __dirname, filename: __filename, resolves: require.resolve('./late.js'), cached: require.cache[__filename] === module, cpus: typeof os.cpus });`,
        `exports.late = () => require('./late.js');`,
      ].join('\n'),
    );
    writeFileSync(join(pkg, 'late.js'), `module.exports = { late: true };`);
    writeFileSync(join(pkg, 'dynamic.js'), `exports.load = () => import('node:path').then((m) => typeof m.join);`);
    const main = join(dir, 'main.js');
    writeFileSync(
      main,
      [
        `const { isMainThread, Worker } = require('node:worker_threads');`,
        `const pkg = require('cached-pkg');`,
        `require('cached-pkg/dynamic.js').load().then((join) => {`,
        `  const line = JSON.stringify({ main: isMainThread, ...pkg.facts(), late: pkg.late().late, join });`,
        `  if (isMainThread) { console.log(line); const w = new Worker(__filename, { execArgv: ['--require', ${JSON.stringify(join(ROOT, 'src', 'register.cjs'))}] }); w.on('error', (e) => { console.error(e); process.exit(1); }); }`,
        `  else console.log(line);`,
        `});`,
      ].join('\n'),
    );
    const expected = {
      thisIsExports: true,
      dirname: pkg,
      filename: join(pkg, 'index.js'),
      resolves: join(pkg, 'late.js'),
      cached: true,
      cpus: 'function',
      late: true,
      join: 'function',
    };
    // The first run compiles and makes the cache (at exit at the latest); the second runs from it.
    for (let run = 0; run < 2; run++) {
      const out = execFileSync(process.execPath, ['--require', join(ROOT, 'src', 'register.cjs'), main], { encoding: 'utf8' });
      expect(
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([
        { main: true, ...expected },
        { main: false, ...expected },
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
