-- AlterTable
ALTER TABLE "attempts_to_fold" ADD COLUMN     "reason" TEXT,
ADD COLUMN     "status_code" INTEGER;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "health" TEXT NOT NULL DEFAULT 'unknown',
ADD COLUMN     "health_url" TEXT,
ADD COLUMN     "last_failure_reason" TEXT,
ADD COLUMN     "last_probe_at" TIMESTAMPTZ(3),
ADD COLUMN     "probe_due_at" TIMESTAMPTZ(3) NOT NULL DEFAULT (CURRENT_TIMESTAMP + '00:05:00'::interval),
ADD COLUMN     "probe_streak" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "quality" JSONB,
ADD COLUMN     "quality_due_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "service_quality_days" (
    "service_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "excused" INTEGER NOT NULL DEFAULT 0,
    "probes_passed" INTEGER NOT NULL DEFAULT 0,
    "probes_failed" INTEGER NOT NULL DEFAULT 0,
    "latency_buckets" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "up_slots" BIT(288) NOT NULL,
    "down_slots" BIT(288) NOT NULL,

    CONSTRAINT "service_quality_days_pkey" PRIMARY KEY ("service_id","day")
);

-- CreateTable
CREATE TABLE "probe_hosts" (
    "host" TEXT NOT NULL,
    "next_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "probe_hosts_pkey" PRIMARY KEY ("host")
);

-- CreateIndex
CREATE INDEX "services_probe_due_at_idx" ON "services"("probe_due_at");

-- CreateIndex
CREATE INDEX "services_quality_due_at_idx" ON "services"("quality_due_at");

-- AddForeignKey
ALTER TABLE "service_quality_days" ADD CONSTRAINT "service_quality_days_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Offers list what a buyer chooses by beside the ranking's figures: the service's health (element 15), the
-- category of its last failure (16), and the quality the marketplace measured (17, see quality.ts).
CREATE OR REPLACE FUNCTION marketplace_write_offers(ids uuid[], at timestamptz) RETURNS void LANGUAGE sql AS $$
  DELETE FROM service_offers o USING services s
    WHERE o.service_id = ANY(ids) AND s.id = o.service_id AND NOT (o.capability = ANY(s.capabilities));
  INSERT INTO service_offers AS o (capability, service_id, active, cost_per_call, reputation, languages,
    score_balanced, score_reputation, score_cost, score_latency, scored_at, rescore_at, listing)
  SELECT DISTINCT ON (c, s.id) c, s.id, s.status = 'active' AND a.status = 'ACTIVE', p.price, a.reputation, s.languages,
    marketplace_offer_score(0.3, 0.2, 0.25, 0.15, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.6, 0.1, 0.15, 0.05, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.6, 0.15, 0.05, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.1, 0.15, 0.55, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    at, marketplace_rescore_at(COALESCE(s.last_success_at, s.created_at), at),
    json_build_array(s.id, s.service_key, s.name, s.description, s.capabilities, p.price, s.pricing_model,
      s.latency_p50_ms, s.success_count, s.failure_count, (extract(epoch FROM COALESCE(s.last_success_at, s.created_at)) * 1000)::bigint,
      a.reputation, a.id, a.name, (extract(epoch FROM s.cooldown_until) * 1000)::bigint, s.health, s.last_failure_reason, s.quality)
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
    CROSS JOIN LATERAL (SELECT COALESCE((s.capability_prices ->> c)::int, s.cost_per_call) AS price) AS p
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
      WHERE (n.capabilities, n.languages, n.cost_per_call, n.capability_prices, n.status, n.agent_id, n.success_count, n.failure_count,
             n.latency_p50_ms, n.last_success_at, n.created_at, n.service_key, n.name, n.description, n.pricing_model, n.cooldown_until,
             n.health, n.last_failure_reason, n.quality::text)
        IS DISTINCT FROM (o.capabilities, o.languages, o.cost_per_call, o.capability_prices, o.status, o.agent_id, o.success_count, o.failure_count,
             o.latency_p50_ms, o.last_success_at, o.created_at, o.service_key, o.name, o.description, o.pricing_model, o.cooldown_until,
             o.health, o.last_failure_reason, o.quality::text)), now());
  END IF;
  RETURN NULL;
END $$;

-- A service turning unhealthy or healthy moves execute's candidates at once, like a cooldown.
DROP TRIGGER services_changed ON services;
CREATE TRIGGER services_changed AFTER UPDATE ON services FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.endpoint IS DISTINCT FROM NEW.endpoint OR OLD.signing_secret IS DISTINCT FROM NEW.signing_secret
    OR OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.languages IS DISTINCT FROM NEW.languages OR OLD.cost_per_call IS DISTINCT FROM NEW.cost_per_call
    OR OLD.cooldown_until IS DISTINCT FROM NEW.cooldown_until OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
    OR OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description OR OLD.service_key IS DISTINCT FROM NEW.service_key
    OR OLD.pricing_model IS DISTINCT FROM NEW.pricing_model OR OLD.capability_prices IS DISTINCT FROM NEW.capability_prices
    OR OLD.health IS DISTINCT FROM NEW.health)
  EXECUTE FUNCTION marketplace_notify_changes();

-- A service is healthy, unhealthy, or not yet known.
ALTER TABLE "services" ADD CONSTRAINT "services_health" CHECK ("health" IN ('unknown', 'healthy', 'unhealthy'));

-- Offers written before list the new elements.
SELECT marketplace_write_offers(ARRAY(SELECT id FROM services), now());
