// `npm run schema:print`: writes schema/schema.graphql, the committed SDL (a test fails when it is stale).
import fs from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { schema } from './index';

export const SDL_PATH = path.join(__dirname, 'schema.graphql');

export function currentSdl(): string {
  return `${printSchema(schema)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(SDL_PATH, currentSdl());
  console.log(`wrote ${path.relative(process.cwd(), SDL_PATH)}`);
}
