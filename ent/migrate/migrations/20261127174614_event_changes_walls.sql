-- Row-level security on event_changes, as on every tenant table (docs/tenancy.md). Its
-- organization_id is written with the change, from the context's organization.
ALTER TABLE "event_changes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "event_changes" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "event_changes" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "event_changes" TO podium_system USING (true) WITH CHECK (true);
