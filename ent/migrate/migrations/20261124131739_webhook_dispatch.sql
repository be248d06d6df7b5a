-- Modify "webhook_messages" table
ALTER TABLE "webhook_messages" ADD COLUMN "dispatched_at" timestamptz NULL, ADD COLUMN "dispatch_job_id" bigint NULL;
-- Create index "webhookmessage_dispatch_job_id" to table: "webhook_messages"
CREATE INDEX "webhookmessage_dispatch_job_id" ON "webhook_messages" ("dispatch_job_id");
-- Create index "webhookmessage_undispatched" to table: "webhook_messages"
CREATE INDEX "webhookmessage_undispatched" ON "webhook_messages" ("created_at") WHERE (dispatched_at IS NULL);
-- Messages written before dispatch runs existed were fanned out by a job of their own: those
-- with deliveries are done; those without are left to the dispatch runs.
UPDATE "webhook_messages" m SET "dispatched_at" = m."created_at"
	WHERE EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."message_id" = m."id");
