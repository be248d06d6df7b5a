-- Widgets (docs/widgets.md): embeddable views of an event's published program.
-- Create "embeds" table
CREATE TABLE "embeds" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "name" character varying NOT NULL, "view" character varying NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "options" jsonb NOT NULL, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "embeds_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "embed_event_id_name" to table: "embeds"
CREATE INDEX "embed_event_id_name" ON "embeds" ("event_id", "name");

-- Row-level security, as on every tenant table below an event (docs/tenancy.md): organization_id
-- is the event's, filled and checked by the trigger.
ALTER TABLE "embeds" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "embeds" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "embeds" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "embeds" USING ((SELECT current_setting('podium.system', true)) = 'on');
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "embeds" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
