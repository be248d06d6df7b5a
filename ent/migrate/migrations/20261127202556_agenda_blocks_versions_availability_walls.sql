-- Row-level security on the agenda's new tables, as on every tenant table below an event
-- (docs/tenancy.md): organization_id is the event's, filled by the trigger; references stay inside
-- the organization through the composite keys podium_tenant_references() adds.
ALTER TABLE "agenda_blocks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "agenda_blocks" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "agenda_blocks" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "agenda_blocks" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "agenda_blocks" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "agenda_versions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "agenda_versions" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "agenda_versions" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "agenda_versions" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "agenda_versions" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "speaker_availabilities" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "speaker_availabilities" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "speaker_availabilities" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "speaker_availabilities" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "speaker_availabilities" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "personal_calendars" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "personal_calendars" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "personal_calendars" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "personal_calendars" TO podium_system USING (true) WITH CHECK (true);
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "personal_calendars" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
SELECT "podium_tenant_references"();
