-- The agenda beyond sessions (docs/agenda.md): blocks, published versions, speaker availability and
-- personal calendars.
-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "published_blocks" jsonb NOT NULL DEFAULT '[]'::jsonb;
-- Create "agenda_blocks" table
CREATE TABLE "agenda_blocks" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "title" character varying NOT NULL, "kind" character varying NOT NULL, "starts_at" timestamptz NOT NULL, "ends_at" timestamptz NOT NULL, "event_id" character varying NOT NULL, "room_id" character varying NULL, PRIMARY KEY ("id"), CONSTRAINT "agenda_blocks_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "agenda_blocks_rooms_room" FOREIGN KEY ("room_id") REFERENCES "rooms" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "agendablock_event_id_starts_at" to table: "agenda_blocks"
CREATE INDEX "agendablock_event_id_starts_at" ON "agenda_blocks" ("event_id", "starts_at");
-- Create "agenda_versions" table
CREATE TABLE "agenda_versions" ("id" character varying NOT NULL, "organization_id" character varying NOT NULL, "number" bigint NOT NULL, "published_at" timestamptz NOT NULL, "published_by" character varying NOT NULL DEFAULT '', "sessions" jsonb NOT NULL, "blocks" jsonb NOT NULL, "changes" jsonb NOT NULL, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "agenda_versions_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "agendaversion_event_id_number" to table: "agenda_versions"
CREATE UNIQUE INDEX "agendaversion_event_id_number" ON "agenda_versions" ("event_id", "number");
-- Create "personal_calendars" table
CREATE TABLE "personal_calendars" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "token_hash" character varying NOT NULL, "session_ids" jsonb NOT NULL, "last_read_at" timestamptz NULL, "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "personal_calendars_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "personalcalendar_event_id" to table: "personal_calendars"
CREATE INDEX "personalcalendar_event_id" ON "personal_calendars" ("event_id");
-- Create index "personalcalendar_token_hash" to table: "personal_calendars"
CREATE UNIQUE INDEX "personalcalendar_token_hash" ON "personal_calendars" ("token_hash");
-- Create "speaker_availabilities" table
CREATE TABLE "speaker_availabilities" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "starts_at" timestamptz NOT NULL, "ends_at" timestamptz NOT NULL, "event_id" character varying NOT NULL, "contact_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "speaker_availabilities_contacts_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "speaker_availabilities_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "speakeravailability_event_id_contact_id_starts_at" to table: "speaker_availabilities"
CREATE INDEX "speakeravailability_event_id_contact_id_starts_at" ON "speaker_availabilities" ("event_id", "contact_id", "starts_at");
