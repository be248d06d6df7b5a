-- Row-level security on the tables of emails organizers own (docs/emails.md), as on every tenant
-- table below an event (docs/tenancy.md): organization_id is the event's, filled by the trigger;
-- references stay inside the organization through the composite keys podium_tenant_references() adds.
-- An access link is found by its hash as system work (podium_system), before anyone is signed in.
ALTER TABLE "email_templates" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "email_templates" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "email_templates" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "email_templates" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "email_templates" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "contact_access_links" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "contact_access_links" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "contact_access_links" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "contact_access_links" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "contact_access_links" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
SELECT "podium_tenant_references"();
