DROP INDEX "webhook_deliveries_order_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_idx" ON "webhook_deliveries" USING btree ("webhook_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("id") WHERE "webhook_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_order_idx" ON "webhook_deliveries" USING btree ("webhook_id","order_key","id") WHERE "webhook_deliveries"."state" = 'pending';