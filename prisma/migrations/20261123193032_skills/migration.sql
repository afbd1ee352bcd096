-- CreateTable
CREATE TABLE "skills" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "runtime" TEXT NOT NULL,
    "entrypoint" TEXT NOT NULL,
    "category" TEXT,
    "version" TEXT NOT NULL DEFAULT '1.0.0',
    "source" TEXT,
    "bundle_url" TEXT,
    "instructions" TEXT NOT NULL DEFAULT '',
    "front_matter" JSONB NOT NULL DEFAULT '{}',
    "published" BOOLEAN NOT NULL DEFAULT false,
    "published_version" TEXT,
    "published_hash" TEXT,
    "published_at" TIMESTAMPTZ(3),
    "listed_name" TEXT,
    "listed_description" TEXT,
    "listed_runtime" TEXT,
    "listed_category" TEXT,
    "listed_entrypoint" TEXT,
    "install_count" INTEGER NOT NULL DEFAULT 0,
    "fork_count" INTEGER NOT NULL DEFAULT 0,
    "forked_from_id" UUID,
    "forked_from_version" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "skills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skill_versions" (
    "skill_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "skill_versions_pkey" PRIMARY KEY ("skill_id","version")
);

-- CreateTable
CREATE TABLE "skill_installs" (
    "agent_id" UUID NOT NULL,
    "skill_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "installed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "skill_installs_pkey" PRIMARY KEY ("agent_id","skill_id")
);

-- CreateTable
CREATE TABLE "skill_listing_counts" (
    "runtime" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "skill_listing_counts_pkey" PRIMARY KEY ("runtime","category")
);

-- CreateIndex
CREATE INDEX "skills_agent_id_created_at_idx" ON "skills"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "skills_published_install_count_id_idx" ON "skills"("published", "install_count" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_listed_runtime_install_count_id_idx" ON "skills"("published", "listed_runtime", "install_count" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_published_at_id_idx" ON "skills"("published", "published_at" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_listed_runtime_published_at_id_idx" ON "skills"("published", "listed_runtime", "published_at" DESC, "id");

-- CreateIndex
CREATE INDEX "skills_published_listed_category_install_count_id_idx" ON "skills"("published", "listed_category", "install_count" DESC, "id");

-- CreateIndex
CREATE UNIQUE INDEX "skills_agent_id_name_key" ON "skills"("agent_id", "name");

-- CreateIndex
CREATE INDEX "skill_installs_agent_id_installed_at_idx" ON "skill_installs"("agent_id", "installed_at");

-- CreateIndex
CREATE INDEX "skill_installs_skill_id_idx" ON "skill_installs"("skill_id");

-- AddForeignKey
ALTER TABLE "skills" ADD CONSTRAINT "skills_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skills" ADD CONSTRAINT "skills_forked_from_id_fkey" FOREIGN KEY ("forked_from_id") REFERENCES "skills"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skill_installs" ADD CONSTRAINT "skill_installs_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "skill_installs" ADD CONSTRAINT "skill_installs_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The marketplace's totals per filter, kept with every change of the skills' listings: statement-level
-- triggers sum each statement's net changes per filter (a bulk import bumps each total once).
CREATE FUNCTION marketplace_skill_counts_apply(changes jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO skill_listing_counts AS c (runtime, category, count)
  SELECT b.runtime, b.category, sum(x.d)::int
  FROM jsonb_to_recordset(changes) AS x(runtime text, category text, d int)
  CROSS JOIN LATERAL (VALUES ('*', '*'), (x.runtime, '*'), ('*', x.category), (x.runtime, x.category)) AS b(runtime, category)
  WHERE b.runtime IS NOT NULL AND b.category IS NOT NULL
  GROUP BY b.runtime, b.category
  HAVING sum(x.d) <> 0
  ORDER BY b.runtime, b.category
  ON CONFLICT (runtime, category) DO UPDATE SET count = c.count + EXCLUDED.count;
$$;

CREATE FUNCTION marketplace_skill_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_skill_counts_apply((SELECT jsonb_agg(jsonb_build_object('runtime', listed_runtime, 'category', listed_category, 'd', 1)) FROM new_rows WHERE published));
  RETURN NULL;
END $$;

CREATE FUNCTION marketplace_skill_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_skill_counts_apply((SELECT jsonb_agg(jsonb_build_object('runtime', listed_runtime, 'category', listed_category, 'd', -1)) FROM old_rows WHERE published));
  RETURN NULL;
END $$;

CREATE FUNCTION marketplace_skill_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM marketplace_skill_counts_apply((
    SELECT jsonb_agg(x) FROM (
      SELECT jsonb_build_object('runtime', listed_runtime, 'category', listed_category, 'd', -1) AS x FROM old_rows WHERE published
      UNION ALL
      SELECT jsonb_build_object('runtime', listed_runtime, 'category', listed_category, 'd', 1) FROM new_rows WHERE published
    ) AS changes));
  RETURN NULL;
END $$;

CREATE TRIGGER skills_listing_counts_insert AFTER INSERT ON "skills" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION marketplace_skill_counts_insert();
CREATE TRIGGER skills_listing_counts_delete AFTER DELETE ON "skills" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION marketplace_skill_counts_delete();
CREATE TRIGGER skills_listing_counts_update AFTER UPDATE ON "skills" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION marketplace_skill_counts_update();
