-- DropForeignKey
ALTER TABLE "execution_attempts" DROP CONSTRAINT "execution_attempts_execution_id_fkey";

-- DropForeignKey
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_execution_id_fkey";

-- What the dropped foreign keys did on delete, without a key check on every recorded execution: the
-- execution, its attempts and its charge are written by one statement (src/domain/execution/execute.ts),
-- where each check locked the new execution's row (a WAL record) and ran a lookup, about a tenth of the
-- statement's cost. Deleting executions (an agent's, by marketplace_ledger_agents_deleted) deletes their
-- attempts, and their transactions keep their row with execution_id cleared, as the keys did. A statement
-- trigger: one pass per DELETE, whatever its size.
CREATE FUNCTION marketplace_ledger_executions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM execution_attempts a USING gone g WHERE a.execution_id = g.id;
  UPDATE transactions t SET execution_id = NULL FROM gone g WHERE t.execution_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_executions_deleted AFTER DELETE ON executions
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION marketplace_ledger_executions_deleted();
