-- AlterTable
ALTER TABLE "services" ADD COLUMN     "failures_at_reactivation" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reactivated_at" TIMESTAMPTZ(3),
ADD COLUMN     "sub_key_policy_set_at" TIMESTAMPTZ(3),
ADD COLUMN     "suspended_from" "ServiceStatus",
ALTER COLUMN "sub_key_permissions" SET DEFAULT ARRAY['read', 'write']::TEXT[];

-- A sub-key policy its owner set is told from none set (src/domain/keys/sub-key-policy.ts). Until now every
-- service started with read only, so a service is taken to have a policy its owner set when the policy
-- differs from that old default, or when its owner changed the policy (the audit entry `service.updated`
-- records `sub_key_policy`); set then, or at registration. The others never had one set: they get the
-- default of services without a policy, read and write, at most 60 a minute.
UPDATE "services" s SET "sub_key_policy_set_at" = COALESCE(
    (SELECT max(e."created_at") FROM "audit_events" e
     WHERE e."action" = 'service.updated' AND e."target_type" = 'service' AND e."target_id" = s."id"::text AND e."details" -> 'sub_key_policy' IS NOT NULL),
    s."created_at")
  WHERE s."sub_key_permissions" IS DISTINCT FROM ARRAY['read']::TEXT[] OR s."sub_key_max_per_minute" <> 60 OR s."sub_key_max_per_day" IS NOT NULL
    OR EXISTS (SELECT 1 FROM "audit_events" e
      WHERE e."action" = 'service.updated' AND e."target_type" = 'service' AND e."target_id" = s."id"::text AND e."details" -> 'sub_key_policy' IS NOT NULL);
UPDATE "services" SET "sub_key_permissions" = ARRAY['read', 'write']::TEXT[] WHERE "sub_key_policy_set_at" IS NULL;

-- `suspended` follows the provider's status in force (src/domain/agents/status.ts): the services of
-- providers suspended or banned now are suspended, keeping the status each had for the reinstatement.
UPDATE "services" s SET "suspended_from" = s."status", "status" = 'suspended'
  FROM "agents" a WHERE a."id" = s."agent_id" AND a."status" <> 'ACTIVE' AND s."status" IN ('active', 'paused', 'inactive');
