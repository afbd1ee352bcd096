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
