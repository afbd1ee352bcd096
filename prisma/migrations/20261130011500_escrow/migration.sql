-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "pending" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "escrows" (
    "execution_id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "amount" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "release_at" TIMESTAMPTZ(3) NOT NULL,
    "dispute_id" UUID,
    "settled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "escrows_pkey" PRIMARY KEY ("execution_id")
);

-- CreateIndex
CREATE INDEX "escrows_wallet_id_status_idx" ON "escrows"("wallet_id", "status");

-- An agent wallet's pending earnings are part of its balance and never spendable: what calls hold and what is
-- pending together never exceed the balance (payments/escrow.ts).
ALTER TABLE "wallets" DROP CONSTRAINT "wallets_agent_funds";
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_agent_funds" CHECK ("account" <> 'agent' OR ("held" >= 0 AND "pending" >= 0 AND "balance" >= "held" + "pending"));

-- The settling worker's claim: pending escrows by when they fall due.
CREATE INDEX "escrows_due_idx" ON "escrows"("release_at") WHERE "status" = 'pending';
