-- A provider's reputation moves only with calls that cost their caller something, made from outside the
-- provider's family (src/domain/execution/provider-stats.ts, docs/collaboration.md): the queue of attempts
-- to fold carries each call's caller and what it put at stake (written by execute's recording statement),
-- and each service counts the calls that moved its provider's reputation apart from its statistics, which
-- still count every call. Attempts queued before this have no caller: they count in the statistics only.
-- AlterTable
ALTER TABLE "attempts_to_fold" ADD COLUMN     "caller_id" UUID,
ADD COLUMN     "price_cents" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "reputation_failure_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reputation_success_count" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
-- An external agent's answers of the last 24 hours, counted for what its next answer earns (ext/delegations.ts).
CREATE INDEX "ext_delegations_external_agent_id_answered_at_idx" ON "ext_delegations"("external_agent_id", "answered_at");
