-- Agenda drafts (docs/agenda-drafts.md): proposed agendas of an event, made in a background job.
-- Create "agenda_drafts" table
CREATE TABLE "agenda_drafts" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "name" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'draft', "criteria" jsonb NOT NULL, "proposal" jsonb NOT NULL, "generated_at" timestamptz NULL, "committed_at" timestamptz NULL, "failure_reason" character varying NULL, "generator" character varying NULL, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "agenda_drafts_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "agendadraft_event_id_created_at" to table: "agenda_drafts"
CREATE INDEX "agendadraft_event_id_created_at" ON "agenda_drafts" ("event_id", "created_at");

-- Row-level security, as on every tenant table (docs/tenancy.md); organization_id is the event's,
-- filled and checked on insert by the trigger the other tables below an event have.
CREATE TRIGGER "podium_organization" BEFORE INSERT ON "agenda_drafts" FOR EACH ROW EXECUTE FUNCTION "podium_organization_from_event"();
ALTER TABLE "agenda_drafts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "agenda_drafts" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "agenda_drafts" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "agenda_drafts" USING ((SELECT current_setting('podium.system', true)) = 'on');
