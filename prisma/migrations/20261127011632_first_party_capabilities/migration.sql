-- AlterTable
ALTER TABLE "execution_attempts" ADD COLUMN     "usage" JSONB;

-- CreateTable
CREATE TABLE "web_snapshots" (
    "agent_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "title" TEXT,
    "content" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "etag" TEXT,
    "last_modified" TEXT,
    "taken_at" TIMESTAMPTZ(3) NOT NULL,
    "checks" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "web_snapshots_pkey" PRIMARY KEY ("agent_id","url")
);

-- CreateTable
CREATE TABLE "radio_follows" (
    "follower_id" UUID NOT NULL,
    "followee_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "radio_follows_pkey" PRIMARY KEY ("follower_id","followee_id")
);

-- CreateIndex
CREATE INDEX "web_snapshots_taken_at_idx" ON "web_snapshots"("taken_at");

-- CreateIndex
CREATE INDEX "radio_follows_followee_id_created_at_idx" ON "radio_follows"("followee_id", "created_at");

-- AddForeignKey
ALTER TABLE "web_snapshots" ADD CONSTRAINT "web_snapshots_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "radio_follows" ADD CONSTRAINT "radio_follows_follower_id_fkey" FOREIGN KEY ("follower_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "radio_follows" ADD CONSTRAINT "radio_follows_followee_id_fkey" FOREIGN KEY ("followee_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
