-- marketplace_charge, the payments migration's PL/pgSQL charge of one paid call, has been unused since the
-- recording statement charges a batch's calls itself, updating each wallet once by the batch's sum
-- (docs/execution.md, "The execution ledger").
DROP FUNCTION IF EXISTS marketplace_charge(uuid, uuid, uuid, bigint, bigint, bigint, uuid, bigint, bigint, uuid, uuid, text, timestamptz);
