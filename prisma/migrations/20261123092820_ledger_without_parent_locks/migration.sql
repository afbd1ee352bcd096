-- DropForeignKey
ALTER TABLE "execution_attempts" DROP CONSTRAINT "execution_attempts_service_id_fkey";

-- DropForeignKey
ALTER TABLE "executions" DROP CONSTRAINT "executions_agent_id_fkey";

-- DropForeignKey
ALTER TABLE "executions" DROP CONSTRAINT "executions_service_id_fkey";

-- What the dropped foreign keys did on delete, without locking the caller's and the provider's rows on
-- every execution: deleting agents deletes their executions (their attempts follow by foreign key, and
-- their transactions keep their row with execution_id cleared, as before); deleting services clears
-- service_id on executions and attempts. Statement triggers: one pass per DELETE, whatever its size.
CREATE FUNCTION marketplace_ledger_agents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM executions e USING gone g WHERE e.agent_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_agents_deleted AFTER DELETE ON agents
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION marketplace_ledger_agents_deleted();

CREATE FUNCTION marketplace_ledger_services_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE executions e SET service_id = NULL FROM gone g WHERE e.service_id = g.id;
  UPDATE execution_attempts a SET service_id = NULL FROM gone g WHERE a.service_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_services_deleted AFTER DELETE ON services
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION marketplace_ledger_services_deleted();
