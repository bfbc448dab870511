ALTER TABLE "statuses" ADD COLUMN "hotkey" integer;--> statement-breakpoint
ALTER TABLE "statuses" ADD CONSTRAINT "statuses_hotkey_digit" CHECK ("statuses"."hotkey" between 1 and 9);
