-- Provider statistics are folded from a queue of their own (src/domain/execution/provider-stats.ts): the
-- statement that records an execution writes each provider attempt to attempts_to_fold as well, and the
-- fold deletes what it counted. It used to mark the attempts themselves (`folded`), an UPDATE that writes a
-- new version of the row and of every index entry: on the embedded database, 20-37 µs an attempt, while a
-- delete from the queue costs 2-5 µs.
CREATE TABLE "attempts_to_fold" (
    "id" BIGSERIAL NOT NULL,
    "service_id" UUID NOT NULL,
    "outcome" TEXT NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "attempts_to_fold_pkey" PRIMARY KEY ("id")
);

-- What was not folded yet is queued, oldest first.
INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, created_at)
  SELECT service_id, outcome, latency_ms, created_at FROM execution_attempts
  WHERE NOT folded AND service_id IS NOT NULL ORDER BY created_at;

DROP INDEX "execution_attempts_folded_created_at_idx";
ALTER TABLE "execution_attempts" DROP COLUMN "folded";

-- The fold reads without locks and applies in one statement that checks nothing it read has moved; when
-- something has, this aborts the statement (a serialization failure: nothing of it is written) and the
-- fold reads again.
CREATE FUNCTION marketplace_fold_unchanged(unchanged boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT unchanged THEN
    RAISE EXCEPTION 'provider statistics moved while being folded' USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN true;
END $$;
