-- Drop index "webhookdelivery_message_id" from table: "webhook_deliveries"
DROP INDEX "webhookdelivery_message_id";
-- Create index "webhookdelivery_message_id_endpoint_id" to table: "webhook_deliveries"
CREATE UNIQUE INDEX "webhookdelivery_message_id_endpoint_id" ON "webhook_deliveries" ("message_id", "endpoint_id");
