-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "external_agent_id" UUID;

-- CreateTable
CREATE TABLE "external_agents" (
    "id" UUID NOT NULL,
    "owner_id" UUID NOT NULL,
    "instance_url" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "capabilities" TEXT[],
    "reputation" INTEGER NOT NULL DEFAULT 20,
    "status" TEXT NOT NULL DEFAULT 'registered',
    "card" JSONB,
    "connected_at" TIMESTAMPTZ(3),
    "secret" TEXT NOT NULL,
    "delegations" INTEGER NOT NULL DEFAULT 0,
    "answered" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "external_agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "external_capabilities" (
    "id" UUID NOT NULL,
    "owner_id" UUID NOT NULL,
    "external_agent_id" UUID,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "input_schema" JSONB NOT NULL,
    "endpoint" TEXT NOT NULL,
    "price_cents" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "external_capabilities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gateway_events" (
    "owner_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "external_agent_id" UUID NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "gateway_events_pkey" PRIMARY KEY ("owner_id","seq")
);

-- CreateTable
CREATE TABLE "gateway_streams" (
    "owner_id" UUID NOT NULL,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "consumed_seq" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "gateway_streams_pkey" PRIMARY KEY ("owner_id")
);

-- CreateTable
CREATE TABLE "vault_tokens" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "audience" TEXT NOT NULL,
    "scopes" TEXT[],
    "subject" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vault_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ext_delegations" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "external_agent_id" UUID NOT NULL,
    "capability" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "task_id" TEXT,
    "swarm_id" TEXT,
    "step" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "execution_id" UUID NOT NULL,
    "result" JSONB,
    "error" TEXT,
    "answered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ext_delegations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_offers" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "description" TEXT NOT NULL,
    "price_cents" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,
    "payee_agent_id" UUID NOT NULL,
    "payee_external_id" UUID,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_offers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_sessions" (
    "id" TEXT NOT NULL,
    "offer_id" TEXT NOT NULL,
    "buyer_id" UUID NOT NULL,
    "amount" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "payment_id" UUID,
    "payer" TEXT,
    "transfer_id" UUID,
    "paid_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "radio_subscriptions" (
    "agent_id" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "radio_subscriptions_pkey" PRIMARY KEY ("agent_id","channel")
);

-- CreateTable
CREATE TABLE "radio_events" (
    "seq" INTEGER NOT NULL,
    "event_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "radio_events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "radio_stream" (
    "id" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "radio_stream_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "external_agents_capabilities_idx" ON "external_agents" USING GIN ("capabilities");

-- CreateIndex
CREATE INDEX "external_agents_reputation_idx" ON "external_agents"("reputation");

-- CreateIndex
CREATE UNIQUE INDEX "external_agents_owner_id_instance_url_key" ON "external_agents"("owner_id", "instance_url");

-- CreateIndex
CREATE INDEX "external_capabilities_name_idx" ON "external_capabilities"("name");

-- CreateIndex
CREATE UNIQUE INDEX "external_capabilities_owner_id_name_key" ON "external_capabilities"("owner_id", "name");

-- CreateIndex
CREATE INDEX "gateway_events_created_at_idx" ON "gateway_events"("created_at");

-- CreateIndex
CREATE INDEX "vault_tokens_agent_id_created_at_idx" ON "vault_tokens"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "ext_delegations_agent_id_created_at_idx" ON "ext_delegations"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "ext_delegations_external_agent_id_created_at_idx" ON "ext_delegations"("external_agent_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_offers_agent_id_created_at_idx" ON "payment_offers"("agent_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "checkout_sessions_payment_id_key" ON "checkout_sessions"("payment_id");

-- CreateIndex
CREATE INDEX "checkout_sessions_offer_id_idx" ON "checkout_sessions"("offer_id");

-- CreateIndex
CREATE INDEX "checkout_sessions_buyer_id_created_at_idx" ON "checkout_sessions"("buyer_id", "created_at");

-- CreateIndex
CREATE INDEX "radio_events_created_at_idx" ON "radio_events"("created_at");

-- CreateIndex
CREATE INDEX "disputes_provider_agent_id_idx" ON "disputes"("provider_agent_id");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_external_agent_id_fkey" FOREIGN KEY ("external_agent_id") REFERENCES "external_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "external_agents" ADD CONSTRAINT "external_agents_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The radio's one stream row, and the broadcast: numbered under that row's lock, so numbers follow commit order.
INSERT INTO "radio_stream" ("id", "last_seq") VALUES (1, 0);

CREATE FUNCTION marketplace_radio_broadcast(p_channel text, p_type text, p_data jsonb, p_at timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  UPDATE radio_stream SET last_seq = last_seq + 1 WHERE id = 1 RETURNING last_seq INTO n;
  INSERT INTO radio_events (seq, event_id, channel, type, data, created_at)
  VALUES (n, 'rev_' || replace(gen_random_uuid()::text, '-', ''), p_channel, p_type, p_data, p_at);
  RETURN n;
END $$;

-- Executions of social-* and radio-* capabilities are broadcast in the transaction that records them.
CREATE FUNCTION marketplace_radio_execution() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_radio_broadcast(NEW.capability, 'execution', jsonb_build_object(
    'execution_id', NEW.id, 'capability', NEW.capability, 'agent_id', NEW.agent_id, 'service_id', NEW.service_id,
    'status', NEW.status::text, 'result', CASE WHEN NEW.status = 'success' THEN NEW.result END, 'latency_ms', NEW.latency_ms), NEW.created_at);
  RETURN NULL;
END $$;

CREATE TRIGGER executions_radio AFTER INSERT ON executions FOR EACH ROW
  WHEN (NEW.capability LIKE 'social-%' OR NEW.capability LIKE 'radio-%')
  EXECUTE FUNCTION marketplace_radio_execution();
