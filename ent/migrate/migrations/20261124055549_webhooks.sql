-- Webhooks (docs/webhooks.md): endpoints, the outbox of messages, and the delivery log.
-- Create "webhook_endpoints" table
CREATE TABLE "webhook_endpoints" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "url" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "event_types" jsonb NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "secret" character varying NOT NULL, "previous_secret" character varying NULL, "previous_secret_expires_at" timestamptz NULL, "failing_since" timestamptz NULL, "disabled_reason" character varying NULL, PRIMARY KEY ("id"));
-- Create index "webhookendpoint_organization_id" to table: "webhook_endpoints"
CREATE INDEX "webhookendpoint_organization_id" ON "webhook_endpoints" ("organization_id");
-- Create "webhook_messages" table
CREATE TABLE "webhook_messages" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "event_type" character varying NOT NULL, "payload" text NOT NULL, PRIMARY KEY ("id"));
-- Create index "webhookmessage_organization_id_created_at" to table: "webhook_messages"
CREATE INDEX "webhookmessage_organization_id_created_at" ON "webhook_messages" ("organization_id", "created_at");
-- Create "webhook_deliveries" table
CREATE TABLE "webhook_deliveries" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "attempts" bigint NOT NULL DEFAULT 0, "response_code" bigint NULL, "latency_ms" bigint NULL, "error" character varying NULL, "delivered_at" timestamptz NULL, "endpoint_id" character varying NOT NULL, "message_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "webhook_deliveries_webhook_messages_deliveries" FOREIGN KEY ("message_id") REFERENCES "webhook_messages" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- Create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_endpoint_id_created_at" ON "webhook_deliveries" ("endpoint_id", "created_at");
-- Create index "webhookdelivery_message_id" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_message_id" ON "webhook_deliveries" ("message_id");

-- Row-level security, as on every tenant table (docs/tenancy.md). organization_id is filled by
-- the application from the context (the tenant filter), and the policies check it.
ALTER TABLE "webhook_endpoints" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_endpoints" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "webhook_endpoints" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "webhook_endpoints" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "webhook_messages" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_messages" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "webhook_messages" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "webhook_messages" USING ((SELECT current_setting('podium.system', true)) = 'on');
ALTER TABLE "webhook_deliveries" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_deliveries" FORCE ROW LEVEL SECURITY;
CREATE POLICY "podium_tenant" ON "webhook_deliveries" USING ("organization_id" = (SELECT current_setting('podium.org_id', true)));
CREATE POLICY "podium_system" ON "webhook_deliveries" USING ((SELECT current_setting('podium.system', true)) = 'on');
