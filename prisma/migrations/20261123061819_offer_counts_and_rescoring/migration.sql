-- AlterTable (added empty, filled below, then required)
ALTER TABLE "service_offers" ADD COLUMN     "rescore_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "capability_offer_counts" (
    "capability" TEXT NOT NULL,
    "active_offers" INTEGER NOT NULL,

    CONSTRAINT "capability_offer_counts_pkey" PRIMARY KEY ("capability")
);

-- CreateIndex
CREATE INDEX "service_offers_rescore_at_idx" ON "service_offers"("rescore_at");

-- When an offer scored at `at` needs re-scoring: once its freshness factor, 1/(1 + age/H) with H = 7 days,
-- has fallen by 0.005, which is 0.05 score points at the freshness weight (0.1) of every preference.
-- With u = 1 + age/H at `at`, that takes H * (1/(1/u - 0.005) - u): 51 minutes for a brand-new service,
-- 3.4 hours at a week old, a day at a month old; never more than 30 days.
CREATE FUNCTION marketplace_rescore_at(fresh_at timestamptz, at timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT at + make_interval(secs => CASE WHEN 1 / u - 0.005 <= 0 THEN 2592000 ELSE LEAST(2592000, 604800 * (1 / (1 / u - 0.005) - u)) END)
  FROM (SELECT 1 + GREATEST(0, EXTRACT(EPOCH FROM (at - fresh_at))::float8) / 604800 AS u) AS age
$$;

UPDATE "service_offers" o SET "rescore_at" = marketplace_rescore_at(COALESCE(s.last_success_at, s.created_at), o.scored_at)
  FROM "services" s WHERE s.id = o.service_id;
ALTER TABLE "service_offers" ALTER COLUMN "rescore_at" SET NOT NULL;

INSERT INTO "capability_offer_counts" ("capability", "active_offers")
  SELECT capability, count(*) FROM "service_offers" WHERE active GROUP BY capability;

-- Writes the offers of the given services from their current rows, in place: a re-scored offer is an
-- update of its row, and offers of capabilities a service no longer lists are deleted. The caller holds
-- the services' row locks (see marketplace_sync_offers), so what it reads here is their latest version.
CREATE FUNCTION marketplace_write_offers(ids uuid[], at timestamptz) RETURNS void LANGUAGE sql AS $$
  DELETE FROM service_offers o USING services s
    WHERE o.service_id = ANY(ids) AND s.id = o.service_id AND NOT (o.capability = ANY(s.capabilities));
  INSERT INTO service_offers AS o (capability, service_id, active, cost_per_call, reputation, languages,
    score_balanced, score_reputation, score_cost, score_latency, scored_at, rescore_at)
  SELECT DISTINCT ON (c, s.id) c, s.id, s.status = 'active' AND a.status = 'ACTIVE', s.cost_per_call, a.reputation, s.languages,
    marketplace_offer_score(0.3, 0.2, 0.25, 0.15, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.6, 0.1, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.6, 0.15, 0.05, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.1, 0.15, 0.55, 0.1, a.reputation, s.cost_per_call, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    at, marketplace_rescore_at(COALESCE(s.last_success_at, s.created_at), at)
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
  WHERE s.id = ANY(ids)
  ON CONFLICT (capability, service_id) DO UPDATE SET
    active = EXCLUDED.active, cost_per_call = EXCLUDED.cost_per_call, reputation = EXCLUDED.reputation, languages = EXCLUDED.languages,
    score_balanced = EXCLUDED.score_balanced, score_reputation = EXCLUDED.score_reputation, score_cost = EXCLUDED.score_cost,
    score_latency = EXCLUDED.score_latency, scored_at = EXCLUDED.scored_at, rescore_at = EXCLUDED.rescore_at;
$$;

-- Re-writes the offers of services that the caller has not locked itself (a provider's reputation or
-- status changed; the refresh job). It locks the services first, in id order: a concurrent update of one
-- of them then either finishes first (and this reads its result) or waits and re-writes the offers itself,
-- so no interleaving leaves stale offers. Lock order everywhere: agents, then services. With skip_locked,
-- services being updated right now are left to their own update. Returns how many services it wrote.
DROP FUNCTION marketplace_sync_offers(uuid[], timestamptz);
CREATE FUNCTION marketplace_sync_offers(ids uuid[], at timestamptz DEFAULT now(), skip_locked boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  locked uuid[];
BEGIN
  IF skip_locked THEN
    locked := ARRAY(SELECT id FROM services WHERE id = ANY(ids) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED);
  ELSE
    locked := ARRAY(SELECT id FROM services WHERE id = ANY(ids) ORDER BY id FOR NO KEY UPDATE);
  END IF;
  PERFORM marketplace_write_offers(locked, at);
  RETURN cardinality(locked);
END $$;

-- New services, and updates of what the ranking reads (per-call statistics included; not updated_at alone).
-- The updating statement already holds the rows' locks.
CREATE OR REPLACE FUNCTION marketplace_services_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM marketplace_write_offers(ARRAY(SELECT id FROM changed_services), now());
  ELSE
    PERFORM marketplace_write_offers(ARRAY(
      SELECT n.id FROM changed_services n JOIN previous_services o ON o.id = n.id
      WHERE (n.capabilities, n.languages, n.cost_per_call, n.status, n.agent_id, n.success_count, n.failure_count,
             n.latency_p50_ms, n.last_success_at, n.created_at)
        IS DISTINCT FROM (o.capabilities, o.languages, o.cost_per_call, o.status, o.agent_id, o.success_count, o.failure_count,
             o.latency_p50_ms, o.last_success_at, o.created_at)), now());
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER services_offers_update ON services;
CREATE TRIGGER services_offers_update AFTER UPDATE ON services
  REFERENCING OLD TABLE AS previous_services NEW TABLE AS changed_services FOR EACH STATEMENT EXECUTE FUNCTION marketplace_services_changed();

-- marketplace_agents_changed (unchanged text) now reaches the locking marketplace_sync_offers.

-- The active-offer count per capability follows net changes of service_offers; re-scoring an offer
-- (an update that leaves `active` as it was) does not touch it, so concurrent re-scores never queue on
-- a capability's count row. Rows are changed in capability order, so two writers cannot deadlock here.
CREATE FUNCTION marketplace_offers_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO capability_offer_counts AS c (capability, active_offers)
      SELECT capability, count(*) FROM new_offers WHERE active GROUP BY capability ORDER BY capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO capability_offer_counts AS c (capability, active_offers)
      SELECT capability, -count(*) FROM old_offers WHERE active GROUP BY capability ORDER BY capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers;
  ELSE
    INSERT INTO capability_offer_counts AS c (capability, active_offers)
      SELECT n.capability, sum(n.active::int - o.active::int) FROM new_offers n JOIN old_offers o USING (capability, service_id)
      GROUP BY n.capability HAVING sum(n.active::int - o.active::int) <> 0 ORDER BY n.capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER service_offers_counted_insert AFTER INSERT ON service_offers
  REFERENCING NEW TABLE AS new_offers FOR EACH STATEMENT EXECUTE FUNCTION marketplace_offers_counted();
CREATE TRIGGER service_offers_counted_update AFTER UPDATE ON service_offers
  REFERENCING OLD TABLE AS old_offers NEW TABLE AS new_offers FOR EACH STATEMENT EXECUTE FUNCTION marketplace_offers_counted();
CREATE TRIGGER service_offers_counted_delete AFTER DELETE ON service_offers
  REFERENCING OLD TABLE AS old_offers FOR EACH STATEMENT EXECUTE FUNCTION marketplace_offers_counted();
