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

-- The marketplace's totals per filter, kept with every change of a skill's listing (net changes only).
CREATE FUNCTION marketplace_skill_count_bump(p_runtime text, p_category text, p_delta int) RETURNS void LANGUAGE sql AS $$
  INSERT INTO skill_listing_counts AS c (runtime, category, count)
  SELECT r, k, p_delta
  FROM unnest(ARRAY['*', p_runtime]) AS r, unnest(CASE WHEN p_category IS NULL THEN ARRAY['*'] ELSE ARRAY['*', p_category] END) AS k
  ON CONFLICT (runtime, category) DO UPDATE SET count = c.count + EXCLUDED.count;
$$;

CREATE FUNCTION marketplace_skill_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.published = NEW.published AND OLD.listed_runtime IS NOT DISTINCT FROM NEW.listed_runtime AND OLD.listed_category IS NOT DISTINCT FROM NEW.listed_category THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.published THEN
    PERFORM marketplace_skill_count_bump(OLD.listed_runtime, OLD.listed_category, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.published THEN
    PERFORM marketplace_skill_count_bump(NEW.listed_runtime, NEW.listed_category, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER skills_listing_counts AFTER INSERT OR UPDATE OR DELETE ON "skills"
  FOR EACH ROW EXECUTE FUNCTION marketplace_skill_counts();
