-- The resume job (resumeDueServices, every 5 s on every instance) looks for paused services whose resume_at
-- has come. Without an index it read every service: with the benchmark's 100,000 it held the embedded
-- database's one session for 14 ms on average (up to 176 ms) every 5 s, and every execution recorded
-- meanwhile waited behind it (execute's p99 on PGlite).
-- CreateIndex
CREATE INDEX "services_status_resume_at_idx" ON "services"("status", "resume_at");
