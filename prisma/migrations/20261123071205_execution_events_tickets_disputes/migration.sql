-- AlterTable
ALTER TABLE "disputes" ADD COLUMN     "execution_id" UUID,
ADD COLUMN     "form" TEXT NOT NULL DEFAULT 'service',
ADD COLUMN     "provider_agent_id" UUID,
ADD COLUMN     "refund_cents" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "resolved_by" TEXT;

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "mode" TEXT NOT NULL DEFAULT 'auto';

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cooldown_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "transactions" ADD COLUMN     "capability" TEXT,
ADD COLUMN     "dispute_id" UUID;

-- CreateTable
CREATE TABLE "execution_attempts" (
    "id" UUID NOT NULL,
    "execution_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "service_id" UUID,
    "service_key" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "score" DOUBLE PRECISION,
    "price_cents" INTEGER NOT NULL,
    "folded" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "execution_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "state_changes" (
    "id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "state_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "id" TEXT NOT NULL,
    "private_key" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "agent_id" UUID,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "active" BOOLEAN NOT NULL DEFAULT true,
    "secret" TEXT NOT NULL,
    "disabled_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "webhook_id" UUID,
    "ticket_endpoint_id" UUID,
    "url" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "last_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tickets" (
    "id" UUID NOT NULL,
    "number" SERIAL NOT NULL,
    "ticket_key" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "service_id" UUID,
    "target_service" TEXT,
    "type" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "priority" TEXT NOT NULL DEFAULT 'medium',
    "agent_name" TEXT NOT NULL,
    "callback_url" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "resolution" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tickets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ticket_comments" (
    "id" UUID NOT NULL,
    "ticket_id" UUID NOT NULL,
    "author_agent_id" UUID,
    "author" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ticket_comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ticket_endpoints" (
    "id" UUID NOT NULL,
    "service_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "name" TEXT,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ticket_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "execution_attempts_execution_id_idx" ON "execution_attempts"("execution_id");

-- CreateIndex
CREATE INDEX "execution_attempts_folded_created_at_idx" ON "execution_attempts"("folded", "created_at");

-- CreateIndex
CREATE INDEX "execution_attempts_service_id_created_at_idx" ON "execution_attempts"("service_id", "created_at");

-- CreateIndex
CREATE INDEX "state_changes_subject_type_subject_id_created_at_idx" ON "state_changes"("subject_type", "subject_id", "created_at");

-- CreateIndex
CREATE INDEX "outbox_events_published_at_created_at_idx" ON "outbox_events"("published_at", "created_at");

-- CreateIndex
CREATE INDEX "outbox_events_agent_id_created_at_idx" ON "outbox_events"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "webhooks_agent_id_idx" ON "webhooks"("agent_id");

-- CreateIndex
CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "deliveries_webhook_id_created_at_idx" ON "deliveries"("webhook_id", "created_at");

-- CreateIndex
CREATE INDEX "deliveries_event_id_idx" ON "deliveries"("event_id");

-- CreateIndex
CREATE INDEX "delivery_attempts_delivery_id_idx" ON "delivery_attempts"("delivery_id");

-- CreateIndex
CREATE UNIQUE INDEX "tickets_number_key" ON "tickets"("number");

-- CreateIndex
CREATE UNIQUE INDEX "tickets_ticket_key_key" ON "tickets"("ticket_key");

-- CreateIndex
CREATE INDEX "tickets_agent_id_created_at_idx" ON "tickets"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "tickets_service_id_created_at_idx" ON "tickets"("service_id", "created_at");

-- CreateIndex
CREATE INDEX "ticket_comments_ticket_id_created_at_idx" ON "ticket_comments"("ticket_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ticket_endpoints_service_id_key" ON "ticket_endpoints"("service_id");

-- CreateIndex
CREATE INDEX "ticket_endpoints_agent_id_idx" ON "ticket_endpoints"("agent_id");

-- CreateIndex
CREATE INDEX "disputes_status_created_at_idx" ON "disputes"("status", "created_at");

-- CreateIndex
CREATE INDEX "disputes_transaction_id_idx" ON "disputes"("transaction_id");

-- AddForeignKey
ALTER TABLE "execution_attempts" ADD CONSTRAINT "execution_attempts_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "execution_attempts" ADD CONSTRAINT "execution_attempts_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_ticket_endpoint_id_fkey" FOREIGN KEY ("ticket_endpoint_id") REFERENCES "ticket_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ticket_comments" ADD CONSTRAINT "ticket_comments_ticket_id_fkey" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ticket_endpoints" ADD CONSTRAINT "ticket_endpoints_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ticket_endpoints" ADD CONSTRAINT "ticket_endpoints_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Ticket keys are ST-<n> with n from this sequence, starting at 1001 (CONTRACT §3).
ALTER SEQUENCE "tickets_number_seq" RESTART WITH 1001;

-- Listings also carry when a provider's cooldown ends (element 15, epoch milliseconds or null), so that
-- execute can skip a cooling provider without another read; the cooldown is watched like the rest.
CREATE OR REPLACE FUNCTION marketplace_write_offers(ids uuid[], at timestamptz) RETURNS void LANGUAGE sql AS $$
  DELETE FROM service_offers o USING services s
    WHERE o.service_id = ANY(ids) AND s.id = o.service_id AND NOT (o.capability = ANY(s.capabilities));
  INSERT INTO service_offers AS o (capability, service_id, active, cost_per_call, reputation, languages,
    score_balanced, score_reputation, score_cost, score_latency, scored_at, rescore_at, listing)
  SELECT DISTINCT ON (c, s.id) c, s.id, s.status = 'active' AND a.status = 'ACTIVE', s.cost_per_call, a.reputation, s.languages,
    marketplace_offer_score(0.3, 0.2, 0.25, 0.15, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.6, 0.1, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.6, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.1, 0.15, 0.55, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    at, marketplace_rescore_at(COALESCE(s.last_success_at, s.created_at), at),
    json_build_array(s.id, s.service_key, s.name, s.description, s.capabilities, s.cost_per_call, s.pricing_model,
      s.latency_p50_ms, s.success_count, s.failure_count, (extract(epoch FROM COALESCE(s.last_success_at, s.created_at)) * 1000)::bigint,
      a.reputation, a.id, a.name, (extract(epoch FROM s.cooldown_until) * 1000)::bigint)
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
  WHERE s.id = ANY(ids)
  ON CONFLICT (capability, service_id) DO UPDATE SET
    active = EXCLUDED.active, cost_per_call = EXCLUDED.cost_per_call, reputation = EXCLUDED.reputation, languages = EXCLUDED.languages,
    score_balanced = EXCLUDED.score_balanced, score_reputation = EXCLUDED.score_reputation, score_cost = EXCLUDED.score_cost,
    score_latency = EXCLUDED.score_latency, scored_at = EXCLUDED.scored_at, rescore_at = EXCLUDED.rescore_at, listing = EXCLUDED.listing;
$$;

CREATE OR REPLACE FUNCTION marketplace_services_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM marketplace_write_offers(ARRAY(SELECT id FROM changed_services), now());
  ELSE
    PERFORM marketplace_write_offers(ARRAY(
      SELECT n.id FROM changed_services n JOIN previous_services o ON o.id = n.id
      WHERE (n.capabilities, n.languages, n.cost_per_call, n.status, n.agent_id, n.success_count, n.failure_count,
             n.latency_p50_ms, n.last_success_at, n.created_at, n.service_key, n.name, n.description, n.pricing_model, n.cooldown_until)
        IS DISTINCT FROM (o.capabilities, o.languages, o.cost_per_call, o.status, o.agent_id, o.success_count, o.failure_count,
             o.latency_p50_ms, o.last_success_at, o.created_at, o.service_key, o.name, o.description, o.pricing_model, o.cooldown_until)), now());
  END IF;
  RETURN NULL;
END $$;

SELECT marketplace_write_offers(ARRAY(SELECT id FROM services), now());
