-- Modify "api_keys" table
ALTER TABLE "api_keys" ADD COLUMN "api_version" character varying NULL;
