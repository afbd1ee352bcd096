// `prisma generate` offline: Prisma would download its native schema engine unless one is named, so we
// name a stand-in that refuses to run (migrations use the WASM engine). Fails loudly if nothing was written.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const outputs = [path.join(root, 'src/db/generated/prisma/client.ts'), path.join(root, 'src/db/generated/pothos-types.ts')];
const started = Date.now();

const prismaCli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [prismaCli, 'generate'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: path.join(__dirname, 'no-schema-engine.sh'), PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
});
if (result.status !== 0) {
  console.error(`prisma generate failed (exit ${result.status})`);
  process.exit(1);
}
const stale = outputs.filter((f) => !fs.existsSync(f) || fs.statSync(f).mtimeMs < started - 1000);
if (stale.length) {
  console.error(`prisma generate wrote nothing to: ${stale.join(', ')}`);
  process.exit(1);
}

// Prisma's client loads its query compiler at the first query from a module holding it as a base64 string,
// which V8 parsed on the start's main thread (import() keeps no code cache) and kept for good. The binary is
// written once here, beside the client, which reads it from the file (docs/operations.md, Footprint), compiled
// once per process under a key of its global: PostgreSQL's two pools share it, and a test runner's worker gives
// every file the one it compiled (test/support/environment.ts).
const classFile = path.join(root, 'src/db/generated/prisma/internal/class.ts');
const WASM_FILE = 'query_compiler.wasm';
const loader =
  /getQueryCompilerWasmModule: async \(\) => \{\n\s*const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_[a-z_]+\.postgresql\.wasm-base64\.js)"\)\n\s*return await decodeBase64AsWasm\(wasm\)\n\s*\},/;
const source = fs.readFileSync(classFile, 'utf8');
const found = loader.exec(source);
if (!found) {
  console.error(`prisma generate's client no longer loads its query compiler as ${loader}: see src/db/generate.ts`);
  process.exit(1);
}
const { wasm } = require(found[1]) as { wasm: string };
fs.writeFileSync(path.join(path.dirname(classFile), WASM_FILE), Buffer.from(wasm, 'base64'));
fs.writeFileSync(
  classFile,
  source.replace(
    loader,
    `getQueryCompilerWasmModule: () =>\n    ((globalThis as unknown as Record<symbol, Promise<WebAssembly.Module>>)[Symbol.for('marketplace.prisma.queryCompiler')] ??= require('node:fs').promises.readFile(require('node:path').join(__dirname, '${WASM_FILE}')).then((bytes: Buffer) => WebAssembly.compile(bytes))),`,
  ),
);
