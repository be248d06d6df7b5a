-- Modify "email_campaigns" table
ALTER TABLE "email_campaigns" ADD COLUMN "reply_to" character varying NULL;
-- Modify "email_log" table
ALTER TABLE "email_log" ADD COLUMN "reply_to" character varying NULL;
-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "reply_to_email" character varying NULL;
