-- An execution's attempts keyed by (execution, ordinal): the key also serves "the attempts of an
-- execution", so a recorded attempt writes one index entry fewer (and no random uuid).
DROP INDEX "execution_attempts_execution_id_idx";

ALTER TABLE "execution_attempts" DROP CONSTRAINT "execution_attempts_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "execution_attempts_pkey" PRIMARY KEY ("execution_id", "ordinal");

-- The outbox's published marks move from a column of the event to a queue of events not yet relayed:
-- marking rewrote the event's row and all of its index entries (published_at was indexed, so no update
-- was HOT); deleting a queue row writes neither.
CREATE TABLE "outbox_unpublished" (
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "event_id" TEXT NOT NULL,

    CONSTRAINT "outbox_unpublished_pkey" PRIMARY KEY ("created_at","event_id")
);

-- Events committed and never relayed stay due for recovery.
INSERT INTO "outbox_unpublished" ("created_at", "event_id")
SELECT "created_at", "id" FROM "outbox_events" WHERE "published_at" IS NULL;

DROP INDEX "outbox_events_published_at_created_at_idx";

ALTER TABLE "outbox_events" DROP COLUMN "published_at";
