-- Login throttling counts per login and client address (docs/decisions/021). The old per-login counts are
-- dropped: they last 15 minutes at most.
DELETE FROM "login_throttle";--> statement-breakpoint
ALTER TABLE "login_throttle" DROP CONSTRAINT "login_throttle_pkey";--> statement-breakpoint
ALTER TABLE "login_throttle" ADD COLUMN "address" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "login_throttle" ADD CONSTRAINT "login_throttle_login_address_pk" PRIMARY KEY("login","address");--> statement-breakpoint
ALTER TABLE "login_throttle" DROP COLUMN "locked_until";
