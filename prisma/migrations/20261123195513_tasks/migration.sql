-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "task_id" TEXT;

-- AlterTable
ALTER TABLE "sparks" ADD COLUMN     "task_id" TEXT;

-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "intent" TEXT NOT NULL,
    "success_criteria" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "budget_cents" INTEGER,
    "spent_cents" INTEGER NOT NULL DEFAULT 0,
    "deadline" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'pending',
    "delegate_id" UUID,
    "result" JSONB,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_delegations" (
    "id" UUID NOT NULL,
    "task_id" TEXT NOT NULL,
    "sub_agent_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "task_delegations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_executions" (
    "id" UUID NOT NULL,
    "task_id" TEXT NOT NULL,
    "delegate_id" UUID NOT NULL,
    "execution_id" UUID NOT NULL,
    "capability" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "criteria_met" BOOLEAN NOT NULL,
    "judgment" JSONB NOT NULL,
    "result" JSONB NOT NULL,
    "executor_delta" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_holds" (
    "id" UUID NOT NULL,
    "task_id" TEXT NOT NULL,
    "cents" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "task_holds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tasks_agent_id_created_at_idx" ON "tasks"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "tasks_delegate_id_status_idx" ON "tasks"("delegate_id", "status");

-- CreateIndex
CREATE INDEX "tasks_status_deadline_idx" ON "tasks"("status", "deadline");

-- CreateIndex
CREATE INDEX "task_delegations_task_id_created_at_idx" ON "task_delegations"("task_id", "created_at");

-- CreateIndex
CREATE INDEX "task_delegations_sub_agent_id_status_idx" ON "task_delegations"("sub_agent_id", "status");

-- CreateIndex
CREATE INDEX "task_executions_task_id_created_at_idx" ON "task_executions"("task_id", "created_at");

-- CreateIndex
CREATE INDEX "task_holds_task_id_expires_at_idx" ON "task_holds"("task_id", "expires_at");

-- CreateIndex
CREATE INDEX "sparks_created_at_idx" ON "sparks"("created_at");

-- CreateIndex
CREATE INDEX "sparks_spark_type_created_at_idx" ON "sparks"("spark_type", "created_at");

-- AddForeignKey
ALTER TABLE "sparks" ADD CONSTRAINT "sparks_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_delegations" ADD CONSTRAINT "task_delegations_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_executions" ADD CONSTRAINT "task_executions_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_holds" ADD CONSTRAINT "task_holds_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
