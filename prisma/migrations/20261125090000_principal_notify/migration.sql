-- Change notifications for the principal cache (src/domain/agents/principal-cache.ts): every instance
-- LISTENs on marketplace_principals and forgets the callers of the agent named by the payload, or every
-- caller for '*'. The cache holds a credential's whole agent row (GET /agents/me answers it), so any change
-- of an agent row notifies, and any change of a credential: its agent's id, or '*' for the administrator's
-- (which has no agent). New credentials need no notification: a hash that matched nothing is not cached.
-- PostgreSQL folds identical notifications of one transaction into one, delivered at commit.
CREATE FUNCTION marketplace_notify_principals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'agents' THEN
    PERFORM pg_notify('marketplace_principals', OLD.id::text);
  ELSE
    PERFORM pg_notify('marketplace_principals', COALESCE(OLD.agent_id::text, '*'));
    IF TG_OP = 'UPDATE' AND NEW.agent_id IS DISTINCT FROM OLD.agent_id THEN
      PERFORM pg_notify('marketplace_principals', COALESCE(NEW.agent_id::text, '*'));
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER agents_principal_changed AFTER UPDATE ON agents FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION marketplace_notify_principals();
CREATE TRIGGER agents_principal_deleted AFTER DELETE ON agents FOR EACH ROW EXECUTE FUNCTION marketplace_notify_principals();
CREATE TRIGGER credentials_principal_changed AFTER UPDATE ON credentials FOR EACH ROW
  WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION marketplace_notify_principals();
CREATE TRIGGER credentials_principal_deleted AFTER DELETE ON credentials FOR EACH ROW EXECUTE FUNCTION marketplace_notify_principals();
