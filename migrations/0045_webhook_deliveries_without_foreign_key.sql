-- Issue 44: the foreign key's check locked the webhook's row for each delivery a press queued (a MultiXact of every
-- concurrent press on those few rows). A webhook's deliveries are now deleted with it by the app (core deleteWebhooks).
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk";
