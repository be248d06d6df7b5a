-- Written by hand: the rate limiter's state (rest/limit.go), shared by every Podium instance on
-- this database so that a key's limit holds across them. One row per API key: the key's
-- theoretical arrival time of GCRA, and whether its last request was allowed.
--
-- UNLOGGED: the rows are rewritten on every request, and losing them in a crash of the database
-- server only refills every key's bucket — no WAL is worth that. Not tenant data (no content,
-- no organization_id, no row-level security): an API key's id says nothing, is never read back
-- through the API, and the limiter writes the row before the request touches anything of its
-- organization (docs/tenancy.md). No foreign key, so a revoked key's row costs nothing to keep.
-- fillfactor 50 keeps each row's updates on its page, heap-only.
CREATE UNLOGGED TABLE "rate_limit_buckets" (
  "api_key_id" character varying NOT NULL PRIMARY KEY,
  "tat" timestamptz NOT NULL,
  "allowed" boolean NOT NULL
) WITH (fillfactor = 50);
GRANT SELECT, INSERT, UPDATE, DELETE ON "rate_limit_buckets" TO podium_app;
