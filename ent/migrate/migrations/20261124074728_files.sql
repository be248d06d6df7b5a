-- Create index "contact_headshot_key" to table: "contacts"
CREATE INDEX "contact_headshot_key" ON "contacts" ("headshot_key") WHERE (headshot_key IS NOT NULL);
-- Create index "deliverableassignment_storage_key" to table: "deliverable_assignments"
CREATE INDEX "deliverableassignment_storage_key" ON "deliverable_assignments" ("storage_key") WHERE (storage_key IS NOT NULL);
-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "background_key" character varying NULL;
-- Create index "event_background_key" to table: "events"
CREATE INDEX "event_background_key" ON "events" ("background_key") WHERE (background_key IS NOT NULL);
-- Create index "event_logo_key" to table: "events"
CREATE INDEX "event_logo_key" ON "events" ("logo_key") WHERE (logo_key IS NOT NULL);
-- Create index "resource_file_storage_key" to table: "resources"
CREATE INDEX "resource_file_storage_key" ON "resources" ("file_storage_key") WHERE (file_storage_key IS NOT NULL);
