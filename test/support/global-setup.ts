// Builds the migrated database templates once per jest run (every project shares this setup).
import { buildPgliteTemplate, buildPostgresTemplate } from './databases';

const flag = globalThis as { __marketplaceTemplates?: Promise<void> };

export default async function globalSetup(): Promise<void> {
  flag.__marketplaceTemplates ??= (async () => {
    await buildPgliteTemplate();
    if (process.env.DATABASE_URL) await buildPostgresTemplate(process.env.DATABASE_URL);
  })();
  await flag.__marketplaceTemplates;
}
