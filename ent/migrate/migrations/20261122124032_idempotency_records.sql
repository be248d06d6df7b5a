-- Create "idempotency_records" table
CREATE TABLE "idempotency_records" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "key" character varying NOT NULL, "request_hash" character varying NOT NULL, "status" bigint NOT NULL, "response" bytea NOT NULL, "api_key_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "idempotency_records_api_keys_idempotency_records" FOREIGN KEY ("api_key_id") REFERENCES "api_keys" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "idempotencyrecord_api_key_id_key" to table: "idempotency_records"
CREATE UNIQUE INDEX "idempotencyrecord_api_key_id_key" ON "idempotency_records" ("api_key_id", "key");
-- Create index "idempotencyrecord_created_at" to table: "idempotency_records"
CREATE INDEX "idempotencyrecord_created_at" ON "idempotency_records" ("created_at");
