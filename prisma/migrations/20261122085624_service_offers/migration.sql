-- CreateTable
CREATE TABLE "service_offers" (
    "capability" TEXT NOT NULL,
    "service_id" UUID NOT NULL,
    "active" BOOLEAN NOT NULL,
    "cost_per_call" INTEGER NOT NULL,
    "reputation" INTEGER NOT NULL,
    "languages" TEXT[],
    "score_balanced" DOUBLE PRECISION NOT NULL,
    "score_reputation" DOUBLE PRECISION NOT NULL,
    "score_cost" DOUBLE PRECISION NOT NULL,
    "score_latency" DOUBLE PRECISION NOT NULL,
    "scored_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "service_offers_pkey" PRIMARY KEY ("capability","service_id")
);

-- CreateIndex
CREATE INDEX "service_offers_capability_score_balanced_idx" ON "service_offers"("capability", "score_balanced" DESC);

-- CreateIndex
CREATE INDEX "service_offers_capability_score_reputation_idx" ON "service_offers"("capability", "score_reputation" DESC);

-- CreateIndex
CREATE INDEX "service_offers_capability_score_cost_idx" ON "service_offers"("capability", "score_cost" DESC);

-- CreateIndex
CREATE INDEX "service_offers_capability_score_latency_idx" ON "service_offers"("capability", "score_latency" DESC);

-- CreateIndex
CREATE INDEX "service_offers_capability_active_reputation_cost_per_call_idx" ON "service_offers"("capability", "active", "reputation", "cost_per_call");

-- CreateIndex
CREATE INDEX "service_offers_service_id_idx" ON "service_offers"("service_id");

-- AddForeignKey
ALTER TABLE "service_offers" ADD CONSTRAINT "service_offers_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The ranking read model is kept by the database itself, so no write path can forget it.
-- marketplace_offer_score mirrors src/domain/discovery/resolve.ts (WEIGHTS and the factor scales);
-- a unit test checks that the two agree.
CREATE FUNCTION marketplace_offer_score(
  w_reputation float8, w_cost float8, w_reliability float8, w_latency float8, w_freshness float8,
  reputation int, cost int, successes int, failures int, latency_ms int, fresh_at timestamptz, at timestamptz
) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT 100 * (
    w_reputation * reputation::float8 / 100
    + w_cost / (1 + cost::float8 / 50)
    + w_reliability * (successes + 1)::float8 / (successes + failures + 2)
    + w_latency * CASE WHEN latency_ms IS NULL THEN 0.5 ELSE 1 / (1 + latency_ms::float8 / 500) END
    + w_freshness / (1 + GREATEST(0, EXTRACT(EPOCH FROM (at - fresh_at))::float8) / 604800)
  )
$$;

-- `at` is the instant the scores are computed for: now() from the triggers, the application's clock from
-- the refresh job.
CREATE FUNCTION marketplace_sync_offers(ids uuid[], at timestamptz DEFAULT now()) RETURNS void LANGUAGE sql AS $$
  DELETE FROM service_offers WHERE service_id = ANY(ids);
  INSERT INTO service_offers (capability, service_id, active, cost_per_call, reputation, languages,
    score_balanced, score_reputation, score_cost, score_latency, scored_at)
  SELECT DISTINCT ON (c, s.id) c, s.id, s.status = 'active' AND a.status = 'ACTIVE', s.cost_per_call, a.reputation, s.languages,
    marketplace_offer_score(0.3, 0.2, 0.25, 0.15, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.6, 0.1, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.6, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.1, 0.15, 0.55, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    now()
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
  WHERE s.id = ANY(ids);
$$;

CREATE FUNCTION marketplace_services_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_sync_offers(ARRAY(SELECT id FROM changed_services));
  RETURN NULL;
END $$;

CREATE TRIGGER services_offers_insert AFTER INSERT ON services
  REFERENCING NEW TABLE AS changed_services FOR EACH STATEMENT EXECUTE FUNCTION marketplace_services_changed();
CREATE TRIGGER services_offers_update AFTER UPDATE ON services
  REFERENCING NEW TABLE AS changed_services FOR EACH STATEMENT EXECUTE FUNCTION marketplace_services_changed();

CREATE FUNCTION marketplace_agents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_sync_offers(ARRAY(
    SELECT s.id FROM services s JOIN new_agents n ON n.id = s.agent_id JOIN old_agents o ON o.id = n.id
    WHERE n.reputation IS DISTINCT FROM o.reputation OR n.status IS DISTINCT FROM o.status));
  RETURN NULL;
END $$;

CREATE TRIGGER agents_offers_update AFTER UPDATE ON agents
  REFERENCING OLD TABLE AS old_agents NEW TABLE AS new_agents FOR EACH STATEMENT EXECUTE FUNCTION marketplace_agents_changed();
