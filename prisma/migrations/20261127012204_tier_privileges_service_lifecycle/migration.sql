-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "ServiceStatus" ADD VALUE 'paused';
ALTER TYPE "ServiceStatus" ADD VALUE 'removed';

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "priority" SMALLINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "disputes" ADD COLUMN     "priority_resolution" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "resume_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "tickets" ADD COLUMN     "priority_resolution" BOOLEAN NOT NULL DEFAULT false;

-- Tier privileges (docs/identity.md, "Priority resolution"): unfinished tickets and disputes filed before
-- this migration take their filer's tier as it is now (its tier when filing was not recorded).
UPDATE "tickets" t SET "priority_resolution" = true FROM "agents" a
  WHERE a."id" = t."agent_id" AND a."reputation" >= 31 AND t."status" NOT IN ('resolved', 'closed');
UPDATE "disputes" d SET "priority_resolution" = true FROM "agents" a
  WHERE a."id" = d."agent_id" AND a."reputation" >= 31 AND d."status" <> 'resolved';
