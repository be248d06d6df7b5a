-- Modify "browser_sessions" table
ALTER TABLE "browser_sessions" ADD COLUMN "access_link_id" character varying NULL;
-- Create index "browsersession_access_link_id" to table: "browser_sessions"
CREATE INDEX "browsersession_access_link_id" ON "browser_sessions" ("access_link_id");
-- Create "contact_access_links" table
CREATE TABLE "contact_access_links" ("id" character varying NOT NULL, "organization_id" character varying NOT NULL, "hash" character varying NOT NULL, "created_at" timestamptz NOT NULL, "expires_at" timestamptz NOT NULL, "revoked_at" timestamptz NULL, "event_id" character varying NOT NULL, "contact_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "contact_access_links_contacts_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "contact_access_links_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "contact_access_links_hash_key" to table: "contact_access_links"
CREATE UNIQUE INDEX "contact_access_links_hash_key" ON "contact_access_links" ("hash");
-- Create index "contactaccesslink_contact_id" to table: "contact_access_links"
CREATE INDEX "contactaccesslink_contact_id" ON "contact_access_links" ("contact_id");
-- Create index "contactaccesslink_expires_at" to table: "contact_access_links"
CREATE INDEX "contactaccesslink_expires_at" ON "contact_access_links" ("expires_at");
-- Create "email_templates" table
CREATE TABLE "email_templates" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "template" character varying NOT NULL, "subject" character varying NOT NULL, "body" text NOT NULL, "updated_by" character varying NOT NULL DEFAULT '', "event_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "email_templates_events_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "emailoverride_event_id_template" to table: "email_templates"
CREATE UNIQUE INDEX "emailoverride_event_id_template" ON "email_templates" ("event_id", "template");
