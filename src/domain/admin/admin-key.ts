// The administrator credential (CONTRACT §1): ADMIN_KEY when set (it replaces any other admin key);
// otherwise one is generated on first start, stored hashed and shown once in the log.
import { newAdminKey, secretHint, sha256Hex } from '../../platform/ids';
import type { Services } from '../context';

export async function ensureAdminKey(services: Pick<Services, 'db' | 'sql' | 'config' | 'log'>): Promise<void> {
  const { db, sql, config, log } = services;
  if (config.adminKey) {
    const hash = sha256Hex(config.adminKey);
    await db.$transaction([
      db.credential.updateMany({ where: { kind: 'admin', hash: { not: hash }, revokedAt: null }, data: { revokedAt: new Date() } }),
      db.credential.upsert({
        where: { hash },
        create: { kind: 'admin', hash, hint: secretHint(config.adminKey) },
        update: { revokedAt: null },
      }),
    ]);
    return;
  }
  const [{ existing }] = await sql.query<{ existing: number }>(
    `SELECT count(*)::int AS existing FROM credentials WHERE kind = 'admin' AND revoked_at IS NULL`,
    [],
  );
  if (existing > 0) return;
  const key = newAdminKey();
  await db.credential.create({ data: { kind: 'admin', hash: sha256Hex(key), hint: secretHint(key) } });
  // Shown once, deliberately outside the redacted fields: there is no other way to learn it.
  log.warn({ admin_key_shown_once: key }, 'generated the administrator key; it is stored hashed and will not be shown again (set ADMIN_KEY to choose one)');
}
