-- CreateTable
CREATE TABLE "swarm_sessions" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "goal" TEXT NOT NULL,
    "strategy" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "step_count" INTEGER NOT NULL,
    "completed_steps" INTEGER NOT NULL DEFAULT 0,
    "failed_steps" INTEGER NOT NULL DEFAULT 0,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "end_seq" INTEGER,
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "swarm_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "swarm_steps" (
    "id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "capability" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "provider" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "execution_id" UUID NOT NULL,
    "result" JSONB,
    "error" TEXT,
    "cost_cents" INTEGER,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "lease_until" TIMESTAMPTZ(3),
    "seq" INTEGER,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "swarm_steps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "swarm_sessions_agent_id_created_at_idx" ON "swarm_sessions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "swarm_sessions_status_created_at_idx" ON "swarm_sessions"("status", "created_at");

-- CreateIndex
CREATE INDEX "swarm_steps_status_lease_until_idx" ON "swarm_steps"("status", "lease_until");

-- CreateIndex
CREATE INDEX "swarm_steps_session_id_seq_idx" ON "swarm_steps"("session_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "swarm_steps_session_id_ordinal_key" ON "swarm_steps"("session_id", "ordinal");

-- AddForeignKey
ALTER TABLE "swarm_sessions" ADD CONSTRAINT "swarm_sessions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "swarm_steps" ADD CONSTRAINT "swarm_steps_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "swarm_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
