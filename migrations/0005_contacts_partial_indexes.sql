DROP INDEX "contacts_rework_idx";--> statement-breakpoint
DROP INDEX "contacts_status_id_idx";--> statement-breakpoint
DROP INDEX "contacts_last_user_id_idx";--> statement-breakpoint
CREATE INDEX "contacts_rework_idx" ON "contacts" USING btree ("database_id","status_id","status_at") WHERE "contacts"."status_id" is not null;--> statement-breakpoint
CREATE INDEX "contacts_status_id_idx" ON "contacts" USING btree ("status_id") WHERE "contacts"."status_id" is not null;--> statement-breakpoint
CREATE INDEX "contacts_last_user_id_idx" ON "contacts" USING btree ("last_user_id") WHERE "contacts"."last_user_id" is not null;