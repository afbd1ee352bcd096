-- Change notifications for execute's hot cache (src/domain/execution/hot-cache.ts): every instance
-- LISTENs on marketplace_changes and empties its cache on any notification. Only changes that can make a
-- cached caller or provider wrong notify (a credential revoked or reassigned; an agent's status, authority
-- scope or parent; a service added, removed, re-pointed, re-priced, re-scoped, re-keyed or cooled down);
-- statistics, scores and reputation do not (the cache's TTL bounds those). PostgreSQL folds identical
-- notifications of one transaction into one, delivered at commit.
CREATE FUNCTION marketplace_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('marketplace_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER credentials_changed AFTER UPDATE ON credentials FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.agent_id IS DISTINCT FROM NEW.agent_id OR OLD.hash IS DISTINCT FROM NEW.hash)
  EXECUTE FUNCTION marketplace_notify_changes();
CREATE TRIGGER credentials_deleted AFTER DELETE ON credentials FOR EACH STATEMENT EXECUTE FUNCTION marketplace_notify_changes();

CREATE TRIGGER agents_changed AFTER UPDATE ON agents FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.authority_scope IS DISTINCT FROM NEW.authority_scope OR OLD.parent_id IS DISTINCT FROM NEW.parent_id)
  EXECUTE FUNCTION marketplace_notify_changes();
CREATE TRIGGER agents_deleted AFTER DELETE ON agents FOR EACH STATEMENT EXECUTE FUNCTION marketplace_notify_changes();

CREATE TRIGGER services_changed AFTER UPDATE ON services FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.endpoint IS DISTINCT FROM NEW.endpoint OR OLD.signing_secret IS DISTINCT FROM NEW.signing_secret
    OR OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.languages IS DISTINCT FROM NEW.languages OR OLD.cost_per_call IS DISTINCT FROM NEW.cost_per_call
    OR OLD.cooldown_until IS DISTINCT FROM NEW.cooldown_until OR OLD.agent_id IS DISTINCT FROM NEW.agent_id)
  EXECUTE FUNCTION marketplace_notify_changes();
CREATE TRIGGER services_added_or_deleted AFTER INSERT OR DELETE ON services FOR EACH STATEMENT EXECUTE FUNCTION marketplace_notify_changes();
