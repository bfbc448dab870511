ALTER TABLE "users" ADD COLUMN "accepts_inbound" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "inbound_ring_seconds" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "inbound_max_managers" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "inbound_number" text DEFAULT '' NOT NULL;