-- Drop index "emaillog_contact_id_type" from table: "email_log"
DROP INDEX "emaillog_contact_id_type";
-- Drop index "emaillog_submission_id" from table: "email_log"
DROP INDEX "emaillog_submission_id";
-- Modify "email_log" table
ALTER TABLE "email_log" ADD COLUMN "template" character varying NULL;
-- Create index "emaillog_contact_id_template" to table: "email_log"
CREATE INDEX "emaillog_contact_id_template" ON "email_log" ("contact_id", "template");
-- Create index "emaillog_submission_id_type" to table: "email_log"
CREATE INDEX "emaillog_submission_id_type" ON "email_log" ("submission_id", "type");
