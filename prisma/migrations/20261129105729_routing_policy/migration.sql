-- AlterTable
ALTER TABLE "attempts_to_fold" ADD COLUMN     "retry_after_seconds" INTEGER;

-- AlterTable
ALTER TABLE "execution_attempts" ADD COLUMN     "retry_after_seconds" INTEGER;

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "routing" JSONB;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "excused_count" INTEGER NOT NULL DEFAULT 0;
