-- CreateEnum
CREATE TYPE "AgentStatus" AS ENUM ('ACTIVE', 'SUSPENDED', 'BANNED');

-- CreateEnum
CREATE TYPE "AutonomyLevel" AS ENUM ('EXECUTE_ONLY', 'DELEGATE', 'CREATE', 'GOVERN');

-- CreateEnum
CREATE TYPE "CredentialKind" AS ENUM ('master', 'admin');

-- CreateTable
CREATE TABLE "agents" (
    "id" UUID NOT NULL,
    "agent_key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "owner_email" TEXT NOT NULL,
    "reputation" INTEGER NOT NULL DEFAULT 20,
    "status" "AgentStatus" NOT NULL DEFAULT 'ACTIVE',
    "autonomy_level" "AutonomyLevel" NOT NULL DEFAULT 'GOVERN',
    "capabilities" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "authority_scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "parent_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credentials" (
    "id" UUID NOT NULL,
    "kind" "CredentialKind" NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "agent_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "credentials_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uptime_samples" (
    "minute" TIMESTAMPTZ(0) NOT NULL,
    "healthy" BOOLEAN NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uptime_samples_pkey" PRIMARY KEY ("minute")
);

-- CreateIndex
CREATE UNIQUE INDEX "agents_agent_key_key" ON "agents"("agent_key");

-- CreateIndex
CREATE UNIQUE INDEX "agents_name_key" ON "agents"("name");

-- CreateIndex
CREATE INDEX "agents_parent_id_idx" ON "agents"("parent_id");

-- CreateIndex
CREATE UNIQUE INDEX "credentials_hash_key" ON "credentials"("hash");

-- CreateIndex
CREATE INDEX "credentials_agent_id_idx" ON "credentials"("agent_id");

-- AddForeignKey
ALTER TABLE "agents" ADD CONSTRAINT "agents_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
