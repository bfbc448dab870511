DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "accepted_status" integer;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "accepted_response" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "accepted_duration_ms" integer;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("webhook_id") WHERE "webhook_deliveries"."state" = 'failed';--> statement-breakpoint
-- Room on each page for the claim's lock (locked_until, in no index) to be a HOT update: no new index entries.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);