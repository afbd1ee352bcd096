-- Every sub-key expires (CONTRACT §3). A key provisioned without an expiry gets the default lifetime
-- (365 days) from its creation, and at least 30 days from this migration so its holder can replace it.
UPDATE "sub_keys" SET "expires_at" = GREATEST("created_at" + interval '365 days', now() + interval '30 days') WHERE "expires_at" IS NULL;

-- AlterTable
ALTER TABLE "sub_keys" ALTER COLUMN "expires_at" SET NOT NULL;
