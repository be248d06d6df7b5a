-- Modify "idempotency_records" table
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_one_caller" CHECK ((api_key_id IS NULL) <> (user_id IS NULL)), ALTER COLUMN "api_key_id" DROP NOT NULL, ADD COLUMN "user_id" character varying NULL;
-- Create index "idempotencyrecord_user_id_organization_id_key" to table: "idempotency_records"
CREATE UNIQUE INDEX "idempotencyrecord_user_id_organization_id_key" ON "idempotency_records" ("user_id", "organization_id", "key");
