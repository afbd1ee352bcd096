-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "mandate_id" UUID;

-- CreateTable
CREATE TABLE "mandates" (
    "id" UUID NOT NULL,
    "grantor_id" UUID NOT NULL,
    "grantee_id" UUID NOT NULL,
    "per_call_cents" INTEGER,
    "daily_cents" INTEGER,
    "monthly_cents" INTEGER,
    "capabilities" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mandates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mandate_periods" (
    "mandate_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "starts_on" DATE NOT NULL,
    "spent_cents" INTEGER NOT NULL DEFAULT 0,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "cap_cents" INTEGER,
    "alerted" INTEGER NOT NULL DEFAULT 0,
    "alerted_now" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mandate_periods_pkey" PRIMARY KEY ("mandate_id","period","starts_on")
);

-- CreateTable
CREATE TABLE "mandate_holds" (
    "id" UUID NOT NULL,
    "mandate_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "month" DATE NOT NULL,
    "cents" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mandate_holds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "mandates_grantor_id_idx" ON "mandates"("grantor_id");

-- CreateIndex
CREATE INDEX "mandate_holds_mandate_id_expires_at_idx" ON "mandate_holds"("mandate_id", "expires_at");

-- AddForeignKey
ALTER TABLE "mandates" ADD CONSTRAINT "mandates_grantor_id_fkey" FOREIGN KEY ("grantor_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mandates" ADD CONSTRAINT "mandates_grantee_id_fkey" FOREIGN KEY ("grantee_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mandate_periods" ADD CONSTRAINT "mandate_periods_mandate_id_fkey" FOREIGN KEY ("mandate_id") REFERENCES "mandates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mandate_holds" ADD CONSTRAINT "mandate_holds_mandate_id_fkey" FOREIGN KEY ("mandate_id") REFERENCES "mandates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A sub-agent holds at most one mandate in force: a new one is granted once the last is revoked.
CREATE UNIQUE INDEX "mandates_grantee_live_idx" ON "mandates"("grantee_id") WHERE "revoked_at" IS NULL;

-- Caps are positive; a period is a UTC day or month.
ALTER TABLE "mandates" ADD CONSTRAINT "mandates_caps" CHECK (coalesce("per_call_cents", 1) > 0 AND coalesce("daily_cents", 1) > 0 AND coalesce("monthly_cents", 1) > 0);
ALTER TABLE "mandate_periods" ADD CONSTRAINT "mandate_periods_period" CHECK ("period" IN ('day', 'month'));
