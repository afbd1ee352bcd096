-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "uto_subscription_id" TEXT;

-- CreateTable
CREATE TABLE "uto_tickets" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "intent" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "context" JSONB NOT NULL,
    "required_capabilities" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "max_budget_cents" INTEGER,
    "state" TEXT NOT NULL DEFAULT 'submitted',
    "state_history" JSONB NOT NULL DEFAULT '[]',
    "matches" JSONB NOT NULL DEFAULT '{}',
    "deadline" TIMESTAMPTZ(3) NOT NULL,
    "match_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "uto_tickets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uto_specialists" (
    "agent_id" UUID NOT NULL,
    "domain" TEXT NOT NULL,
    "capabilities" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "uto_specialists_pkey" PRIMARY KEY ("agent_id","domain")
);

-- CreateTable
CREATE TABLE "uto_subscriptions" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "event_types" TEXT[],
    "delivery_type" TEXT NOT NULL,
    "domain" TEXT,
    "webhook_url" TEXT,
    "secret" TEXT,
    "start_seq" INTEGER NOT NULL DEFAULT 0,
    "cursor" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "uto_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uto_events" (
    "agent_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "ticket_id" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "uto_events_pkey" PRIMARY KEY ("agent_id","seq")
);

-- CreateTable
CREATE TABLE "uto_streams" (
    "agent_id" UUID NOT NULL,
    "last_seq" INTEGER NOT NULL,

    CONSTRAINT "uto_streams_pkey" PRIMARY KEY ("agent_id")
);

-- CreateTable
CREATE TABLE "conglomerates" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "goal" TEXT NOT NULL,
    "conglomerate_type" TEXT NOT NULL DEFAULT 'COLLABORATION',
    "max_budget_cents" INTEGER NOT NULL,
    "member_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "exit_deadline" TIMESTAMPTZ(3),
    "max_loss_cents" INTEGER,
    "profit_target_cents" INTEGER,
    "state" TEXT NOT NULL DEFAULT 'FORMING',
    "state_history" JSONB NOT NULL DEFAULT '[]',
    "trades" INTEGER NOT NULL DEFAULT 0,
    "executions" INTEGER NOT NULL DEFAULT 0,
    "spent_cents" INTEGER NOT NULL DEFAULT 0,
    "proceeds_cents" INTEGER NOT NULL DEFAULT 0,
    "operating_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "end_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "conglomerates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conglomerate_entries" (
    "id" UUID NOT NULL,
    "conglomerate_id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "cost_cents" INTEGER NOT NULL,
    "proceeds_cents" INTEGER NOT NULL,
    "execution_id" UUID,
    "description" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conglomerate_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "uto_tickets_agent_id_created_at_idx" ON "uto_tickets"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "uto_tickets_state_deadline_idx" ON "uto_tickets"("state", "deadline");

-- CreateIndex
CREATE INDEX "uto_tickets_match_at_idx" ON "uto_tickets"("match_at");

-- CreateIndex
CREATE INDEX "uto_specialists_domain_created_at_idx" ON "uto_specialists"("domain", "created_at");

-- CreateIndex
CREATE INDEX "uto_subscriptions_agent_id_created_at_idx" ON "uto_subscriptions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "uto_events_created_at_idx" ON "uto_events"("created_at");

-- CreateIndex
CREATE INDEX "conglomerates_agent_id_created_at_idx" ON "conglomerates"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "conglomerates_state_exit_deadline_idx" ON "conglomerates"("state", "exit_deadline");

-- CreateIndex
CREATE INDEX "conglomerates_member_ids_idx" ON "conglomerates" USING GIN ("member_ids");

-- CreateIndex
CREATE UNIQUE INDEX "conglomerate_entries_execution_id_key" ON "conglomerate_entries"("execution_id");

-- CreateIndex
CREATE INDEX "conglomerate_entries_conglomerate_id_created_at_idx" ON "conglomerate_entries"("conglomerate_id", "created_at");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_uto_subscription_id_fkey" FOREIGN KEY ("uto_subscription_id") REFERENCES "uto_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uto_tickets" ADD CONSTRAINT "uto_tickets_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uto_specialists" ADD CONSTRAINT "uto_specialists_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uto_subscriptions" ADD CONSTRAINT "uto_subscriptions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conglomerates" ADD CONSTRAINT "conglomerates_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conglomerate_entries" ADD CONSTRAINT "conglomerate_entries_conglomerate_id_fkey" FOREIGN KEY ("conglomerate_id") REFERENCES "conglomerates"("id") ON DELETE CASCADE ON UPDATE CASCADE;
