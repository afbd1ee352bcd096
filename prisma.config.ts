// Prisma CLI configuration. Only `prisma generate` uses the CLI; migrations are created and applied
// by src/db/migrate.ts with Prisma's migration engine in WASM, so no URL is needed here.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
