-- DropForeignKey
ALTER TABLE "wallet_entries" DROP CONSTRAINT "wallet_entries_wallet_id_fkey";

-- DropIndex
DROP INDEX "wallet_entries_wallet_id_idx";

-- AlterTable
ALTER TABLE "capability_offer_counts" ADD COLUMN     "paid_cost_sum" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "paid_offers" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "idempotency_records" ADD COLUMN     "headers" JSONB;

-- AlterTable
ALTER TABLE "services" ADD COLUMN     "capability_prices" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "wallet_entries" ADD COLUMN     "execution_id" UUID,
ADD COLUMN     "payment_id" UUID,
ADD COLUMN     "transfer_id" UUID;
-- Entries written before transfers existed are each a transfer of their own (balanced below).
UPDATE "wallet_entries" SET "transfer_id" = "id";
ALTER TABLE "wallet_entries" ALTER COLUMN "transfer_id" SET NOT NULL;

-- AlterTable
ALTER TABLE "wallets" ADD COLUMN     "account" TEXT NOT NULL DEFAULT 'agent',
ADD COLUMN     "balance" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "encrypted_key" TEXT,
ADD COLUMN     "held" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "key_origin" TEXT NOT NULL DEFAULT 'generated',
ALTER COLUMN "agent_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "wallet_holds" (
    "id" UUID NOT NULL,
    "wallet_id" UUID NOT NULL,
    "amount" BIGINT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_holds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "x402_payments" (
    "id" UUID NOT NULL,
    "network" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "pay_to" TEXT NOT NULL,
    "agent_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "execution_id" UUID,
    "status" TEXT NOT NULL,
    "failure" TEXT,
    "transaction" TEXT,
    "claimed_until" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "x402_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sandbox_authorizations" (
    "asset" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "payee" TEXT NOT NULL,
    "value" BIGINT NOT NULL,
    "transaction" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_authorizations_pkey" PRIMARY KEY ("asset","payer","nonce")
);

-- CreateTable
CREATE TABLE "platform_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "wallet_holds_expires_at_idx" ON "wallet_holds"("expires_at");

-- CreateIndex
CREATE INDEX "x402_payments_agent_id_created_at_idx" ON "x402_payments"("agent_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "x402_payments_network_asset_payer_nonce_key" ON "x402_payments"("network", "asset", "payer", "nonce");

-- CreateIndex
CREATE INDEX "wallet_entries_wallet_id_created_at_idx" ON "wallet_entries"("wallet_id", "created_at");

-- CreateIndex
CREATE INDEX "wallet_entries_execution_id_idx" ON "wallet_entries"("execution_id");

-- Wallets created before the marketplace held keys have an address and no key: they get one when first
-- needed (src/domain/payments/wallet-keys.ts). Balances are kept from now on; start them from the ledger.
UPDATE "wallets" SET "key_origin" = 'none';
UPDATE "wallets" w SET "balance" = COALESCE((SELECT sum(e."amount") FROM "wallet_entries" e WHERE e."wallet_id" = w."id"), 0);

-- The marketplace's own accounts, with fixed ids (src/domain/payments/ledger.ts). Their addresses are
-- labels: no key exists for them.
INSERT INTO "wallets" ("id", "agent_id", "account", "address", "network", "asset", "key_origin")
SELECT id::uuid, NULL, account, '0x' || substr(md5('marketplace:' || account), 1, 32) || lpad(to_hex(n), 8, '0'), 'base-sepolia', 'USDC', 'none'
FROM (VALUES ('00000000-0000-4000-8000-000000000001', 'revenue', 1), ('00000000-0000-4000-8000-000000000002', 'faucet', 2),
             ('00000000-0000-4000-8000-000000000003', 'settlement', 3), ('00000000-0000-4000-8000-000000000004', 'inflow', 4)) AS a(id, account, n);

-- Every transfer sums to zero: entries written before transfers existed are balanced from the faucet.
INSERT INTO "wallet_entries" ("id", "wallet_id", "amount", "kind", "reference", "transfer_id", "created_at")
SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000002', -e."amount", 'opening_balance', NULL, e."transfer_id", e."created_at"
FROM "wallet_entries" e WHERE e."transfer_id" = e."id" AND e."wallet_id" <> '00000000-0000-4000-8000-000000000002';

-- An agent's wallet never goes below zero, nor below what calls in flight hold.
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_agent_funds" CHECK ("account" <> 'agent' OR ("held" >= 0 AND "balance" >= "held"));

-- An offer's price is its capability's price on the service when one is set, else the service's
-- costPerCall; the listing carries the same price (element 6).
CREATE OR REPLACE FUNCTION marketplace_write_offers(ids uuid[], at timestamptz) RETURNS void LANGUAGE sql AS $$
  DELETE FROM service_offers o USING services s
    WHERE o.service_id = ANY(ids) AND s.id = o.service_id AND NOT (o.capability = ANY(s.capabilities));
  INSERT INTO service_offers AS o (capability, service_id, active, cost_per_call, reputation, languages,
    score_balanced, score_reputation, score_cost, score_latency, scored_at, rescore_at, listing)
  SELECT DISTINCT ON (c, s.id) c, s.id, s.status = 'active' AND a.status = 'ACTIVE', p.price, a.reputation, s.languages,
    marketplace_offer_score(0.3, 0.2, 0.25, 0.15, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.6, 0.1, 0.15, 0.05, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.6, 0.15, 0.05, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    marketplace_offer_score(0.1, 0.1, 0.15, 0.55, 0.1, a.reputation, p.price, s.success_count, s.failure_count, s.latency_p50_ms, COALESCE(s.last_success_at, s.created_at), at),
    at, marketplace_rescore_at(COALESCE(s.last_success_at, s.created_at), at),
    json_build_array(s.id, s.service_key, s.name, s.description, s.capabilities, p.price, s.pricing_model,
      s.latency_p50_ms, s.success_count, s.failure_count, (extract(epoch FROM COALESCE(s.last_success_at, s.created_at)) * 1000)::bigint,
      a.reputation, a.id, a.name, (extract(epoch FROM s.cooldown_until) * 1000)::bigint)
  FROM services s JOIN agents a ON a.id = s.agent_id CROSS JOIN unnest(s.capabilities) AS c
    CROSS JOIN LATERAL (SELECT COALESCE((s.capability_prices ->> c)::int, s.cost_per_call) AS price) AS p
  WHERE s.id = ANY(ids)
  ON CONFLICT (capability, service_id) DO UPDATE SET
    active = EXCLUDED.active, cost_per_call = EXCLUDED.cost_per_call, reputation = EXCLUDED.reputation, languages = EXCLUDED.languages,
    score_balanced = EXCLUDED.score_balanced, score_reputation = EXCLUDED.score_reputation, score_cost = EXCLUDED.score_cost,
    score_latency = EXCLUDED.score_latency, scored_at = EXCLUDED.scored_at, rescore_at = EXCLUDED.rescore_at, listing = EXCLUDED.listing;
$$;

CREATE OR REPLACE FUNCTION marketplace_services_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM marketplace_write_offers(ARRAY(SELECT id FROM changed_services), now());
  ELSE
    PERFORM marketplace_write_offers(ARRAY(
      SELECT n.id FROM changed_services n JOIN previous_services o ON o.id = n.id
      WHERE (n.capabilities, n.languages, n.cost_per_call, n.capability_prices, n.status, n.agent_id, n.success_count, n.failure_count,
             n.latency_p50_ms, n.last_success_at, n.created_at, n.service_key, n.name, n.description, n.pricing_model, n.cooldown_until)
        IS DISTINCT FROM (o.capabilities, o.languages, o.cost_per_call, o.capability_prices, o.status, o.agent_id, o.success_count, o.failure_count,
             o.latency_p50_ms, o.last_success_at, o.created_at, o.service_key, o.name, o.description, o.pricing_model, o.cooldown_until)), now());
  END IF;
  RETURN NULL;
END $$;

-- A re-priced capability empties execute's hot cache like a re-priced service.
DROP TRIGGER services_changed ON services;
CREATE TRIGGER services_changed AFTER UPDATE ON services FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.endpoint IS DISTINCT FROM NEW.endpoint OR OLD.signing_secret IS DISTINCT FROM NEW.signing_secret
    OR OLD.capabilities IS DISTINCT FROM NEW.capabilities OR OLD.languages IS DISTINCT FROM NEW.languages OR OLD.cost_per_call IS DISTINCT FROM NEW.cost_per_call
    OR OLD.capability_prices IS DISTINCT FROM NEW.capability_prices
    OR OLD.cooldown_until IS DISTINCT FROM NEW.cooldown_until OR OLD.agent_id IS DISTINCT FROM NEW.agent_id)
  EXECUTE FUNCTION marketplace_notify_changes();

-- The counts per capability also count the paid active offers and sum their prices (GET /capabilities/pricing).
CREATE OR REPLACE FUNCTION marketplace_offers_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO capability_offer_counts AS c (capability, active_offers, paid_offers, paid_cost_sum)
      SELECT capability, count(*), count(*) FILTER (WHERE cost_per_call > 0), COALESCE(sum(cost_per_call), 0)
      FROM new_offers WHERE active GROUP BY capability ORDER BY capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers,
        paid_offers = c.paid_offers + EXCLUDED.paid_offers, paid_cost_sum = c.paid_cost_sum + EXCLUDED.paid_cost_sum;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO capability_offer_counts AS c (capability, active_offers, paid_offers, paid_cost_sum)
      SELECT capability, -count(*), -count(*) FILTER (WHERE cost_per_call > 0), -COALESCE(sum(cost_per_call), 0)
      FROM old_offers WHERE active GROUP BY capability ORDER BY capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers,
        paid_offers = c.paid_offers + EXCLUDED.paid_offers, paid_cost_sum = c.paid_cost_sum + EXCLUDED.paid_cost_sum;
  ELSE
    INSERT INTO capability_offer_counts AS c (capability, active_offers, paid_offers, paid_cost_sum)
      SELECT n.capability, sum(n.active::int - o.active::int),
        sum((n.active AND n.cost_per_call > 0)::int - (o.active AND o.cost_per_call > 0)::int),
        sum(CASE WHEN n.active THEN n.cost_per_call ELSE 0 END - CASE WHEN o.active THEN o.cost_per_call ELSE 0 END)
      FROM new_offers n JOIN old_offers o USING (capability, service_id)
      GROUP BY n.capability
      HAVING sum(n.active::int - o.active::int) <> 0
        OR sum((n.active AND n.cost_per_call > 0)::int - (o.active AND o.cost_per_call > 0)::int) <> 0
        OR sum(CASE WHEN n.active THEN n.cost_per_call ELSE 0 END - CASE WHEN o.active THEN o.cost_per_call ELSE 0 END) <> 0
      ORDER BY n.capability
      ON CONFLICT (capability) DO UPDATE SET active_offers = c.active_offers + EXCLUDED.active_offers,
        paid_offers = c.paid_offers + EXCLUDED.paid_offers, paid_cost_sum = c.paid_cost_sum + EXCLUDED.paid_cost_sum;
  END IF;
  RETURN NULL;
END $$;

UPDATE capability_offer_counts c SET
  paid_offers = (SELECT count(*) FROM service_offers o WHERE o.capability = c.capability AND o.active AND o.cost_per_call > 0),
  paid_cost_sum = (SELECT COALESCE(sum(o.cost_per_call), 0) FROM service_offers o WHERE o.capability = c.capability AND o.active);

-- A capability's price range among its paid active offers, read from the ends of this index.
CREATE INDEX "service_offers_paid_idx" ON "service_offers" ("capability", "cost_per_call") WHERE "active" AND "cost_per_call" > 0;

-- A paid call's charge, called by the statement that records the call (src/domain/execution/execute.ts):
-- the caller's wallet is charged (less its own share when it is its own provider) and its `held` lowered by
-- `release` (a lease's charge), or by the whole of its own hold `hold` if that still stands (an x402 call);
-- the provider's wallet gets its share; the transfer's three entries are appended. The wallets are updated
-- in id order, as every statement moving money between wallets locks them. A function, so that these
-- statements are planned once per connection rather than with every call. Answers what left `held`.
CREATE FUNCTION marketplace_charge(caller_wallet uuid, provider_wallet uuid, earning_wallet uuid, caller_delta bigint, share bigint,
  release bigint, hold uuid, charge bigint, fee bigint, transfer uuid, execution uuid, reference text, at timestamptz)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  released bigint := release;
BEGIN
  IF released IS NULL THEN
    DELETE FROM wallet_holds WHERE id = hold RETURNING amount INTO released;
    released := COALESCE(released, 0);
  END IF;
  IF provider_wallet IS NULL OR caller_wallet < provider_wallet THEN
    UPDATE wallets SET balance = balance + caller_delta, held = held - released WHERE id = caller_wallet;
    IF provider_wallet IS NOT NULL THEN
      UPDATE wallets SET balance = balance + share WHERE id = provider_wallet;
    END IF;
  ELSE
    UPDATE wallets SET balance = balance + share WHERE id = provider_wallet;
    UPDATE wallets SET balance = balance + caller_delta, held = held - released WHERE id = caller_wallet;
  END IF;
  INSERT INTO wallet_entries (id, wallet_id, amount, kind, reference, transfer_id, execution_id, created_at)
  SELECT gen_random_uuid(), x.wallet_id, x.amount, x.kind, x.reference, transfer, execution, at FROM (VALUES
    (caller_wallet, -charge, 'charge', marketplace_charge.reference),
    (earning_wallet, charge - fee, 'earning', NULL),
    ('00000000-0000-4000-8000-000000000001'::uuid, fee, 'fee', NULL)) AS x(wallet_id, amount, kind, reference)
  WHERE x.amount <> 0;
  RETURN released;
END $$;
