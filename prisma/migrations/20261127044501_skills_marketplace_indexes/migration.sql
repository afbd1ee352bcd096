-- The marketplace's every filter and sort reads its page in order from an index: a category sorted newest
-- first, and a runtime and a category together (one skill in a hundred) either way, which used to read the
-- runtime's or the category's index and filter it, twenty to a hundred rows read for each row listed.
-- CreateIndex
CREATE INDEX "skills_published_listed_category_published_at_id_idx" ON "skills"("published", "listed_category", "published_at" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_listed_runtime_listed_category_install_cou_idx" ON "skills"("published", "listed_runtime", "listed_category", "install_count" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_listed_runtime_listed_category_published_a_idx" ON "skills"("published", "listed_runtime", "listed_category", "published_at" DESC, "id");
