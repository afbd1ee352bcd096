-- DropIndex
DROP INDEX "service_offers_capability_score_balanced_idx";

-- DropIndex
DROP INDEX "service_offers_capability_score_cost_idx";

-- DropIndex
DROP INDEX "service_offers_capability_score_latency_idx";

-- DropIndex
DROP INDEX "service_offers_capability_score_reputation_idx";

-- CreateIndex
CREATE INDEX "service_offers_capability_active_score_balanced_cost_per_ca_idx" ON "service_offers"("capability", "active", "score_balanced" DESC, "cost_per_call", "service_id");

-- CreateIndex
CREATE INDEX "service_offers_capability_active_score_reputation_cost_per__idx" ON "service_offers"("capability", "active", "score_reputation" DESC, "cost_per_call", "service_id");

-- CreateIndex
CREATE INDEX "service_offers_capability_active_score_cost_cost_per_call_s_idx" ON "service_offers"("capability", "active", "score_cost" DESC, "cost_per_call", "service_id");

-- CreateIndex
CREATE INDEX "service_offers_capability_active_score_latency_cost_per_cal_idx" ON "service_offers"("capability", "active", "score_latency" DESC, "cost_per_call", "service_id");
