-- Written by hand: the budgets of emails that anyone can make Podium send (graph/access/mailbudget,
-- docs/people.md), shared by every Podium instance on this database so that a budget holds
-- across them. One row per budget: its theoretical arrival time of GCRA.
--
-- Logged, unlike rate_limit_buckets: a budget spans a day, and a crash of the database server
-- must not hand every address a fresh one. Not tenant data (no organization_id, no row-level
-- security): a key is a hash of an address or client, or the id of a form or an organization,
-- and is never read back through the API. fillfactor 50 keeps each row's updates on its page.
CREATE TABLE "email_budgets" (
  "key" character varying NOT NULL PRIMARY KEY,
  "tat" timestamptz NOT NULL
) WITH (fillfactor = 50);
CREATE INDEX "email_budgets_tat" ON "email_budgets" ("tat");
GRANT SELECT, INSERT, UPDATE, DELETE ON "email_budgets" TO podium_app;
