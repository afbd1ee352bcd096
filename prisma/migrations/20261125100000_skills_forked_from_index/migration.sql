-- Deleting a skill (or an agent, cascading to its skills) sets its forks' forked_from_id to NULL; without an
-- index that is a read of the whole skills table per deleted skill (34 ms each at 100,000 skills: an hour
-- for an agent with 100,000 of them).
CREATE INDEX "skills_forked_from_id_idx" ON "skills"("forked_from_id");
