-- Modify "webhook_deliveries" table
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_endpoints_deliveries", DROP CONSTRAINT "webhook_deliveries_webhook_messages_deliveries";
