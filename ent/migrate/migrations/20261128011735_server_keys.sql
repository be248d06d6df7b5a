-- Create "server_keys" table
CREATE TABLE "server_keys" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "key" bytea NOT NULL, PRIMARY KEY ("id"));
-- Create index "server_keys_name_key" to table: "server_keys"
CREATE UNIQUE INDEX "server_keys_name_key" ON "server_keys" ("name");
