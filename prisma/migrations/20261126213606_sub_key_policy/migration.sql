-- AlterTable
ALTER TABLE "services" ADD COLUMN     "sub_key_max_per_day" INTEGER,
ADD COLUMN     "sub_key_max_per_minute" INTEGER NOT NULL DEFAULT 60,
ADD COLUMN     "sub_key_permissions" TEXT[] DEFAULT ARRAY['read']::TEXT[];

-- Every service starts with the default sub-key policy (read only, at most 60 requests a minute, no daily
-- maximum) until its owner sets another (src/domain/keys/sub-key-policy.ts). Sub-keys provisioned before
-- keep the permissions and rates they were given: the policy applies to provisioning from now on.
