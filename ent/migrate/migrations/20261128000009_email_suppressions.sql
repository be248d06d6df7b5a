-- Create "email_suppressions" table
CREATE TABLE "email_suppressions" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "address" character varying NOT NULL, "reason" character varying NOT NULL, "detail" character varying NOT NULL DEFAULT '', PRIMARY KEY ("id"));
-- Create index "emailsuppression_organization_id_address" to table: "email_suppressions"
CREATE UNIQUE INDEX "emailsuppression_organization_id_address" ON "email_suppressions" ("organization_id", "address");
