-- CreateEnum
CREATE TYPE "ServiceStatus" AS ENUM ('active', 'inactive', 'suspended');

-- CreateEnum
CREATE TYPE "PricingModel" AS ENUM ('free', 'per_call', 'monthly', 'freemium');

-- CreateEnum
CREATE TYPE "ExecutionStatus" AS ENUM ('success', 'error');

-- CreateTable
CREATE TABLE "capabilities" (
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "group_name" TEXT NOT NULL,
    "parent_slug" TEXT,
    "description" TEXT,
    "builtin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "capabilities_pkey" PRIMARY KEY ("slug")
);

-- CreateTable
CREATE TABLE "services" (
    "id" UUID NOT NULL,
    "service_key" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "capabilities" TEXT[],
    "languages" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "pricing_model" "PricingModel" NOT NULL,
    "pricing_details" JSONB,
    "cost_per_call" INTEGER NOT NULL DEFAULT 0,
    "status" "ServiceStatus" NOT NULL DEFAULT 'active',
    "signing_secret" TEXT NOT NULL,
    "success_count" INTEGER NOT NULL DEFAULT 0,
    "failure_count" INTEGER NOT NULL DEFAULT 0,
    "latency_p50_ms" INTEGER,
    "latency_p95_ms" INTEGER,
    "latency_buckets" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "last_success_at" TIMESTAMPTZ(3),
    "last_failure_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "services_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sub_keys" (
    "id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "service_id" UUID NOT NULL,
    "permissions" TEXT[],
    "rate_limits" JSONB,
    "expires_at" TIMESTAMPTZ(3),
    "grace_ends_at" TIMESTAMPTZ(3),
    "rotated_from_id" UUID,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sub_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reputation_events" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "delta" INTEGER NOT NULL,
    "score_after" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "source_type" TEXT,
    "source_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reputation_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT,
    "target_type" TEXT,
    "target_id" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',
    "ip_address" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executions" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "capability" TEXT NOT NULL,
    "service_id" UUID,
    "status" "ExecutionStatus" NOT NULL,
    "input" JSONB,
    "result" JSONB,
    "error" TEXT,
    "cost_cents" INTEGER NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transactions" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "execution_id" UUID,
    "service_id" UUID,
    "kind" TEXT NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "latency_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "disputes" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "service_id" UUID,
    "transaction_id" UUID,
    "kind" TEXT NOT NULL,
    "description" TEXT,
    "evidence" JSONB,
    "status" TEXT NOT NULL DEFAULT 'open',
    "resolution" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "disputes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sparks" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "spark_type" TEXT NOT NULL,
    "quality_score" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sparks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_counters" (
    "agent_id" UUID NOT NULL,
    "endpoint" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("agent_id","endpoint","day")
);

-- CreateIndex
CREATE INDEX "capabilities_group_name_idx" ON "capabilities"("group_name");

-- CreateIndex
CREATE UNIQUE INDEX "services_service_key_key" ON "services"("service_key");

-- CreateIndex
CREATE INDEX "services_capabilities_idx" ON "services" USING GIN ("capabilities");

-- CreateIndex
CREATE INDEX "services_agent_id_idx" ON "services"("agent_id");

-- CreateIndex
CREATE INDEX "services_status_cost_per_call_idx" ON "services"("status", "cost_per_call");

-- CreateIndex
CREATE UNIQUE INDEX "sub_keys_hash_key" ON "sub_keys"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "sub_keys_rotated_from_id_key" ON "sub_keys"("rotated_from_id");

-- CreateIndex
CREATE INDEX "sub_keys_agent_id_created_at_idx" ON "sub_keys"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "sub_keys_service_id_idx" ON "sub_keys"("service_id");

-- CreateIndex
CREATE INDEX "reputation_events_agent_id_created_at_idx" ON "reputation_events"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "audit_events_agent_id_created_at_idx" ON "audit_events"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "executions_agent_id_created_at_idx" ON "executions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "executions_service_id_created_at_idx" ON "executions"("service_id", "created_at");

-- CreateIndex
CREATE INDEX "transactions_agent_id_created_at_idx" ON "transactions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "transactions_created_at_idx" ON "transactions"("created_at");

-- CreateIndex
CREATE INDEX "disputes_agent_id_created_at_idx" ON "disputes"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "sparks_agent_id_created_at_idx" ON "sparks"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "agents_reputation_idx" ON "agents"("reputation");

-- AddForeignKey
ALTER TABLE "services" ADD CONSTRAINT "services_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sub_keys" ADD CONSTRAINT "sub_keys_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sub_keys" ADD CONSTRAINT "sub_keys_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sub_keys" ADD CONSTRAINT "sub_keys_rotated_from_id_fkey" FOREIGN KEY ("rotated_from_id") REFERENCES "sub_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reputation_events" ADD CONSTRAINT "reputation_events_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sparks" ADD CONSTRAINT "sparks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
