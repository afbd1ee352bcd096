-- A limited ranking's total sample (TOTAL_SAMPLE offers of a capability in service id order, with the
-- reputation, price and languages its limits test) read from this index alone: at a million services the
-- sample's 200 rows sat on as many heap pages (docs/discovery.md, Resolve).
-- CreateIndex
CREATE INDEX "service_offers_capability_active_service_id_reputation_cost_idx" ON "service_offers"("capability", "active", "service_id", "reputation", "cost_per_call", "languages");
