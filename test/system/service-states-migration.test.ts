// The migration service_states_and_open_sub_key_policy on rows written before it: which services had a sub-key
// policy their owner set (kept) and which only the old read-only default (none set: read and write now), and
// the services of providers suspended or banned at the upgrade (suspended, keeping the status each had).
import { readMigrations } from '../../src/db/migrate';
import { blankPglite } from '../support/databases';

jest.setTimeout(120_000);

it('tells a policy its owner set from the old default, and suspends the services of suspended providers', async () => {
  const db = await blankPglite();
  try {
    const all = readMigrations().migrationDirectories;
    const at = all.findIndex((d) => d.path.endsWith('_service_states_and_open_sub_key_policy'));
    expect(at).toBeGreaterThan(0);
    const sql = (i: number) => (all[i].migrationFile.content as { value: string }).value;
    for (let i = 0; i < at; i++) await db.exec(sql(i));
    const id = (n: number) => `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
    await db.exec(`
      INSERT INTO agents (id, agent_key, name, description, owner_email, status, own_status, updated_at) VALUES
        ('${id(1)}', 'ag_1', 'owner', 'd', 'o@example.com', 'ACTIVE', 'ACTIVE', now()),
        ('${id(2)}', 'ag_2', 'suspended-owner', 'd', 'o@example.com', 'SUSPENDED', 'SUSPENDED', now());
      INSERT INTO services (id, service_key, agent_id, name, description, endpoint, pricing_model, signing_secret, status,
          sub_key_permissions, sub_key_max_per_minute, sub_key_max_per_day, created_at, updated_at) VALUES
        ('${id(11)}', 'svc_default', '${id(1)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'active', '{read}', 60, NULL, '2026-11-01', now()),
        ('${id(12)}', 'svc_narrow_rate', '${id(1)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'active', '{read}', 10, NULL, '2026-11-02', now()),
        ('${id(13)}', 'svc_admin', '${id(1)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'active', '{read,write,admin}', 60, NULL, '2026-11-03', now()),
        ('${id(14)}', 'svc_chosen_read', '${id(1)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'active', '{read}', 60, NULL, '2026-11-04', now()),
        ('${id(21)}', 'svc_held', '${id(2)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'active', '{read}', 60, NULL, '2026-11-05', now()),
        ('${id(22)}', 'svc_held_paused', '${id(2)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'paused', '{read}', 60, NULL, '2026-11-06', now()),
        ('${id(23)}', 'svc_gone', '${id(2)}', 's', 'a service', 'https://x.example', 'free', 'whsec_x', 'removed', '{read}', 60, NULL, '2026-11-07', now());
      -- The owner of svc_chosen_read set read only itself, with PATCH: the audit log says so.
      INSERT INTO audit_events (id, agent_id, action, actor_kind, target_type, target_id, details, created_at) VALUES
        (gen_random_uuid(), '${id(1)}', 'service.updated', 'agent', 'service', '${id(14)}',
          '{"service_key": "svc_chosen_read", "changed": [], "sub_key_policy": {"permissions": ["read"]}}', '2026-11-20T10:00:00Z'),
        (gen_random_uuid(), '${id(1)}', 'service.updated', 'agent', 'service', '${id(11)}', '{"service_key": "svc_default", "changed": ["name"]}', '2026-11-20T11:00:00Z');
    `);
    await db.exec(sql(at));
    const { rows } = await db.query<{
      service_key: string;
      status: string;
      suspended_from: string | null;
      sub_key_permissions: string[];
      set_at: string | null;
    }>(
      `SELECT service_key, status::text, suspended_from::text, sub_key_permissions, to_char(sub_key_policy_set_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS set_at
       FROM services ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { service_key: 'svc_default', status: 'active', suspended_from: null, sub_key_permissions: ['read', 'write'], set_at: null },
      { service_key: 'svc_narrow_rate', status: 'active', suspended_from: null, sub_key_permissions: ['read'], set_at: '2026-11-02T00:00' },
      { service_key: 'svc_admin', status: 'active', suspended_from: null, sub_key_permissions: ['read', 'write', 'admin'], set_at: '2026-11-03T00:00' },
      { service_key: 'svc_chosen_read', status: 'active', suspended_from: null, sub_key_permissions: ['read'], set_at: '2026-11-20T10:00' },
      { service_key: 'svc_held', status: 'suspended', suspended_from: 'active', sub_key_permissions: ['read', 'write'], set_at: null },
      { service_key: 'svc_held_paused', status: 'suspended', suspended_from: 'paused', sub_key_permissions: ['read', 'write'], set_at: null },
      { service_key: 'svc_gone', status: 'removed', suspended_from: null, sub_key_permissions: ['read', 'write'], set_at: null },
    ]);
  } finally {
    await db.close();
  }
});
