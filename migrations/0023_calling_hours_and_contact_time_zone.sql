ALTER TABLE "settings" ADD COLUMN "tz_backfilled_to" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "tz_backfill_end" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "tz" text;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "calls_from" time DEFAULT '09:00' NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "calls_until" time DEFAULT '21:00' NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "call_days" integer[] DEFAULT '{1,2,3,4,5,6,7}'::int[] NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "time_zone" text DEFAULT 'Europe/Kyiv' NOT NULL;--> statement-breakpoint
-- Hand-written (decision 050): contacts already in bases get their time zone from the app's backfill job, which
-- walks ids up to the highest one now (a migration cannot run the phone library). Every contact imported from now
-- on gets it at import.
INSERT INTO "settings" ("id", "tz_backfill_end") SELECT 1, max("id") FROM "contacts" HAVING max("id") IS NOT NULL
ON CONFLICT ("id") DO UPDATE SET "tz_backfill_end" = excluded."tz_backfill_end";
