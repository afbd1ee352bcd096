-- CreateTable
CREATE TABLE "a2a_tasks" (
    "id" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "context_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "a2a_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webmcp_sites" (
    "id" UUID NOT NULL,
    "origin" TEXT NOT NULL,
    "manifest_url" TEXT NOT NULL,
    "name" TEXT,
    "description" TEXT,
    "tool_count" INTEGER NOT NULL DEFAULT 0,
    "own" BOOLEAN NOT NULL DEFAULT false,
    "indexed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webmcp_sites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webmcp_tools" (
    "id" UUID NOT NULL,
    "site_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "input_schema" JSONB NOT NULL,
    "search" tsvector,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webmcp_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webmcp_submissions" (
    "id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "site_id" UUID,
    "tool_count" INTEGER,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "webmcp_submissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "a2a_tasks_agent_id_updated_at_idx" ON "a2a_tasks"("agent_id", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "webmcp_sites_origin_key" ON "webmcp_sites"("origin");

-- CreateIndex
CREATE INDEX "webmcp_tools_category_name_idx" ON "webmcp_tools"("category", "name");

-- CreateIndex
CREATE INDEX "webmcp_tools_search_idx" ON "webmcp_tools" USING GIN ("search");

-- CreateIndex
CREATE UNIQUE INDEX "webmcp_tools_site_id_name_key" ON "webmcp_tools"("site_id", "name");

-- CreateIndex
CREATE INDEX "webmcp_submissions_state_run_at_idx" ON "webmcp_submissions"("state", "run_at");

-- AddForeignKey
ALTER TABLE "a2a_tasks" ADD CONSTRAINT "a2a_tasks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webmcp_tools" ADD CONSTRAINT "webmcp_tools_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "webmcp_sites"("id") ON DELETE CASCADE ON UPDATE CASCADE;
