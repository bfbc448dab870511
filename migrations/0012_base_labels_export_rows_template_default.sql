ALTER TABLE "templates" ALTER COLUMN "is_active" SET DEFAULT true;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "extra_labels" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "exports" ADD COLUMN "rows_total" integer;--> statement-breakpoint
ALTER TABLE "exports" ADD COLUMN "rows_written" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Until now "active" had no effect and new templates were inactive by default; it now decides whether managers
-- get the template (decision 034). Existing templates keep working: every one is active after the upgrade.
UPDATE "templates" SET "is_active" = true;
