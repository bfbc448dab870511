CREATE TABLE "public_holidays" (
	"zone" text NOT NULL,
	"day" date NOT NULL,
	CONSTRAINT "public_holidays_zone_day_pk" PRIMARY KEY("zone","day")
);
--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "holidays_filled" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "weekend_from" time;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "weekend_until" time;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "days_off" date[] DEFAULT '{}'::date[] NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_weekend_both" CHECK (("filters"."weekend_from" is null) = ("filters"."weekend_until" is null));