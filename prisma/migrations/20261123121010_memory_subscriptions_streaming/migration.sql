-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "subscription_id" UUID;

-- CreateTable
CREATE TABLE "memory_stores" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "store_type" TEXT NOT NULL,
    "access_level" TEXT NOT NULL DEFAULT 'private',
    "description" TEXT,
    "dimensions" INTEGER,
    "default_ttl_seconds" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memory_stores_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memory_entries" (
    "store_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "value" JSONB NOT NULL,
    "embedding" REAL[],
    "norm" DOUBLE PRECISION,
    "expires_at" TIMESTAMPTZ(3),
    "written_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memory_entries_pkey" PRIMARY KEY ("store_id","key")
);

-- CreateTable
CREATE TABLE "memory_entry_versions" (
    "store_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "value" JSONB NOT NULL,
    "embedding" REAL[],
    "expires_at" TIMESTAMPTZ(3),
    "written_by" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memory_entry_versions_pkey" PRIMARY KEY ("store_id","key","version")
);

-- CreateTable
CREATE TABLE "capability_subscriptions" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "capability_id" TEXT NOT NULL,
    "input_payload" JSONB NOT NULL,
    "schedule" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "delivery_method" TEXT NOT NULL,
    "delivery_config" JSONB NOT NULL,
    "secret" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "next_run_at" TIMESTAMPTZ(3),
    "last_run_at" TIMESTAMPTZ(3),
    "run_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "capability_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription_runs" (
    "id" UUID NOT NULL,
    "subscription_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "execution_id" UUID,
    "result" JSONB,
    "error" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "streaming_sessions" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "capability_id" TEXT NOT NULL,
    "stream_type" TEXT NOT NULL DEFAULT 'sse',
    "status" TEXT NOT NULL DEFAULT 'active',
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "ended_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "streaming_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "streaming_events" (
    "session_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "event" TEXT NOT NULL DEFAULT 'message',
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "streaming_events_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateIndex
CREATE INDEX "memory_stores_access_level_created_at_idx" ON "memory_stores"("access_level", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "memory_stores_agent_id_name_key" ON "memory_stores"("agent_id", "name");

-- CreateIndex
CREATE INDEX "memory_entries_expires_at_idx" ON "memory_entries"("expires_at");

-- CreateIndex
CREATE INDEX "memory_entries_value_idx" ON "memory_entries" USING GIN ("value" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "capability_subscriptions_status_next_run_at_idx" ON "capability_subscriptions"("status", "next_run_at");

-- CreateIndex
CREATE INDEX "capability_subscriptions_agent_id_created_at_idx" ON "capability_subscriptions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "subscription_runs_status_lease_until_idx" ON "subscription_runs"("status", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "subscription_runs_subscription_id_scheduled_for_key" ON "subscription_runs"("subscription_id", "scheduled_for");

-- CreateIndex
CREATE UNIQUE INDEX "subscription_runs_subscription_id_seq_key" ON "subscription_runs"("subscription_id", "seq");

-- CreateIndex
CREATE INDEX "streaming_sessions_agent_id_created_at_idx" ON "streaming_sessions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "streaming_events_created_at_idx" ON "streaming_events"("created_at");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "capability_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_stores" ADD CONSTRAINT "memory_stores_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_entries" ADD CONSTRAINT "memory_entries_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "memory_stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory_entry_versions" ADD CONSTRAINT "memory_entry_versions_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "memory_stores"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "capability_subscriptions" ADD CONSTRAINT "capability_subscriptions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_runs" ADD CONSTRAINT "subscription_runs_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "capability_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streaming_sessions" ADD CONSTRAINT "streaming_sessions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "streaming_events" ADD CONSTRAINT "streaming_events_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "streaming_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- pgvector where the database has it (PGlite ships it; managed PostgreSQL services do): the embedding as a
-- `vector` too, for each vector store's HNSW index (created with the store's dimensions, see
-- src/domain/memory/vectors.ts). Elsewhere memory search scans exactly, in SQL, with the same answers.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    ALTER TABLE "memory_entries" ADD COLUMN "embedding_vec" vector;
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pgvector is available but this role cannot enable it: memory search scans exactly';
END $$;
