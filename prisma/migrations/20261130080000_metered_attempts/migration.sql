-- A metered provider's answer: what it said it used and what was charged for it (payments/metering.ts).
ALTER TABLE "execution_attempts" ADD COLUMN "metered" JSONB;
