-- AlterTable (added empty, filled below, then required)
ALTER TABLE "service_offers" ADD COLUMN     "listing" JSON;

-- The offers now carry the service as a ranking answer lists it: a ranking reads one row per match and
-- builds nothing. The order of the array is RankedOffer's in src/domain/discovery/resolve.ts.
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
      a.reputation, a.id, a.name)
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
  WHERE s.id = ANY(ids)
  ON CONFLICT (capability, service_id) DO UPDATE SET
    active = EXCLUDED.active, cost_per_call = EXCLUDED.cost_per_call, reputation = EXCLUDED.reputation, languages = EXCLUDED.languages,
    score_balanced = EXCLUDED.score_balanced, score_reputation = EXCLUDED.score_reputation, score_cost = EXCLUDED.score_cost,
    score_latency = EXCLUDED.score_latency, scored_at = EXCLUDED.scored_at, rescore_at = EXCLUDED.rescore_at, listing = EXCLUDED.listing;
$$;

-- A service's update re-writes its offers when anything the ranking reads or lists changed.
CREATE OR REPLACE FUNCTION marketplace_services_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM marketplace_write_offers(ARRAY(SELECT id FROM changed_services), now());
  ELSE
    PERFORM marketplace_write_offers(ARRAY(
      SELECT n.id FROM changed_services n JOIN previous_services o ON o.id = n.id
      WHERE (n.capabilities, n.languages, n.cost_per_call, n.status, n.agent_id, n.success_count, n.failure_count,
             n.latency_p50_ms, n.last_success_at, n.created_at, n.service_key, n.name, n.description, n.pricing_model)
        IS DISTINCT FROM (o.capabilities, o.languages, o.cost_per_call, o.status, o.agent_id, o.success_count, o.failure_count,
             o.latency_p50_ms, o.last_success_at, o.created_at, o.service_key, o.name, o.description, o.pricing_model)), now());
  END IF;
  RETURN NULL;
END $$;

-- A provider's change reaches its offers when their scores or listings show it.
CREATE OR REPLACE FUNCTION marketplace_agents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_sync_offers(ARRAY(
    SELECT s.id FROM services s JOIN new_agents n ON n.id = s.agent_id JOIN old_agents o ON o.id = n.id
    WHERE (n.reputation, n.status, n.name) IS DISTINCT FROM (o.reputation, o.status, o.name)));
  RETURN NULL;
END $$;

SELECT marketplace_write_offers(ARRAY(SELECT id FROM services), now());
ALTER TABLE "service_offers" ALTER COLUMN "listing" SET NOT NULL;
