-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "own_status" "AgentStatus" NOT NULL DEFAULT 'ACTIVE';

-- Until now `status` was what the administrator set on each agent. It becomes that agent's own status, and
-- `status` the status in force: the worst of its own and its parent's (the enum's order, ACTIVE <
-- SUSPENDED < BANNED, makes the worst the greatest). Sub-agents of agents already suspended or banned are
-- refused from now on, as those agents are.
UPDATE "agents" SET "own_status" = "status" WHERE "status" <> 'ACTIVE';

WITH RECURSIVE tree AS (
  SELECT "id", "own_status" AS "status" FROM "agents" WHERE "parent_id" IS NULL
  UNION
  SELECT c."id", GREATEST(c."own_status", tree."status") FROM "agents" c JOIN tree ON c."parent_id" = tree."id"
)
UPDATE "agents" a SET "status" = tree."status" FROM tree WHERE a."id" = tree."id" AND a."status" <> tree."status";
