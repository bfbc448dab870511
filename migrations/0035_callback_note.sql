ALTER TABLE "callbacks" ADD COLUMN "note" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "callbacks" ADD COLUMN "lead_event_id" bigint;