// Builds the migrated databases once per jest run (every project shares this setup): the embedded database's seed
// when the install made none for these migrations, and PostgreSQL's template.
import { buildSeed } from '../../src/db/seed';
import { buildPostgresTemplate } from './databases';

const flag = globalThis as { __marketplaceTemplates?: Promise<void> };

export default async function globalSetup(): Promise<void> {
  flag.__marketplaceTemplates ??= (async () => {
    await buildSeed();
    if (process.env.DATABASE_URL) await buildPostgresTemplate(process.env.DATABASE_URL);
  })();
  await flag.__marketplaceTemplates;
}
