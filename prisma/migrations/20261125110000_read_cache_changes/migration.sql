-- The read cache (src/platform/read-cache.ts) keeps resolve's rankings, execute's candidates and the skills
-- marketplace's pages; every instance empties it on any notification of marketplace_changes. What a kept
-- answer shows must then move only with statistics (a service's success and failure counts and latency, a
-- skill's install and fork counts), which the cache's TTL bounds. So, besides what execute_hot_cache
-- notified:
-- * an agent's reputation (min_reputation admits by it) and name (listed as the provider's name);
-- * a service's name, description, key, pricing model and per-capability prices;
-- * a skill added, removed, published or withdrawn, re-published (version, hash, listed summary), or given
--   to another agent.
-- Re-scoring offers as time passes notifies from the application (refreshOfferScores), once per batch.
DROP TRIGGER agents_changed ON agents;
CREATE TRIGGER agents_changed AFTER UPDATE ON agents FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.authority_scope IS DISTINCT FROM NEW.authority_scope OR OLD.parent_id IS DISTINCT FROM NEW.parent_id
    OR OLD.reputation IS DISTINCT FROM NEW.reputation OR OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION marketplace_notify_changes();

DROP TRIGGER services_changed ON services;
CREATE TRIGGER services_changed AFTER UPDATE ON services FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.endpoint IS DISTINCT FROM NEW.endpoint OR OLD.signing_secret IS DISTINCT FROM NEW.signing_secret
    OR OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.languages IS DISTINCT FROM NEW.languages OR OLD.cost_per_call IS DISTINCT FROM NEW.cost_per_call
    OR OLD.cooldown_until IS DISTINCT FROM NEW.cooldown_until OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
    OR OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description OR OLD.service_key IS DISTINCT FROM NEW.service_key
    OR OLD.pricing_model IS DISTINCT FROM NEW.pricing_model OR OLD.capability_prices IS DISTINCT FROM NEW.capability_prices)
  EXECUTE FUNCTION marketplace_notify_changes();

CREATE TRIGGER skills_listing_changed AFTER UPDATE ON skills FOR EACH ROW
  WHEN (OLD.published IS DISTINCT FROM NEW.published OR OLD.published_hash IS DISTINCT FROM NEW.published_hash
    OR OLD.published_version IS DISTINCT FROM NEW.published_version OR OLD.published_at IS DISTINCT FROM NEW.published_at
    OR OLD.listed_name IS DISTINCT FROM NEW.listed_name OR OLD.listed_description IS DISTINCT FROM NEW.listed_description
    OR OLD.listed_runtime IS DISTINCT FROM NEW.listed_runtime OR OLD.listed_category IS DISTINCT FROM NEW.listed_category
    OR OLD.listed_entrypoint IS DISTINCT FROM NEW.listed_entrypoint OR OLD.agent_id IS DISTINCT FROM NEW.agent_id)
  EXECUTE FUNCTION marketplace_notify_changes();
CREATE TRIGGER skills_added_or_deleted AFTER INSERT OR DELETE ON skills FOR EACH STATEMENT EXECUTE FUNCTION marketplace_notify_changes();
