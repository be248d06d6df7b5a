-- Row-level security on email_suppressions, as on every tenant table of an organization
-- (docs/tenancy.md): a suppression belongs to the organization, not to an event, so no trigger
-- copies organization_id from a parent; the tenant filter fills it from the context on insert (as
-- for webhook endpoints) and the policy checks it.
ALTER TABLE "email_suppressions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "email_suppressions" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "email_suppressions" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "email_suppressions" TO podium_system USING (true) WITH CHECK (true);
SELECT "podium_tenant_references"();
