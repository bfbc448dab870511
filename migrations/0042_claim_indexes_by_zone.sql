DROP INDEX "contacts_free_idx";--> statement-breakpoint
DROP INDEX "contacts_rework_idx";--> statement-breakpoint
CREATE INDEX "contacts_free_idx" ON "contacts" USING btree ("database_id",coalesce("tz", ''),"id") WHERE "contacts"."status_id" is null and "contacts"."held_by" is null and not "contacts"."listed";--> statement-breakpoint
CREATE INDEX "contacts_rework_idx" ON "contacts" USING btree ("database_id","status_id",coalesce("tz", ''),"status_at","id") WHERE "contacts"."status_id" is not null;