ALTER TABLE "contacts" ADD COLUMN "consent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "contact_limit_day" integer;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "contact_limit_week" integer;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "contact_limit_month" integer;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "contact_limit_counts" text DEFAULT 'connected' NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "requires_consent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_contact_limits_positive" CHECK ("filters"."contact_limit_day" >= 1 and "filters"."contact_limit_week" >= 1 and "filters"."contact_limit_month" >= 1);