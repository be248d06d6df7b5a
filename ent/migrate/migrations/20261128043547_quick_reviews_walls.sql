-- Row-level security on quick_reviews, as on every tenant table below an event
-- (docs/tenancy.md): organization_id is the event's, filled by the trigger; references stay inside
-- the organization through the composite keys podium_tenant_references() adds.
ALTER TABLE "quick_reviews" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "quick_reviews" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "quick_reviews" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "quick_reviews" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "quick_reviews" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
SELECT "podium_tenant_references"();
