CREATE TABLE "manager_breaks" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"ended_by" text,
	CONSTRAINT "manager_breaks_end_after_start" CHECK ("manager_breaks"."ended_at" is null or "manager_breaks"."ended_at" >= "manager_breaks"."started_at")
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "held_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "manager_breaks" ADD CONSTRAINT "manager_breaks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "manager_breaks_open_idx" ON "manager_breaks" USING btree ("user_id") WHERE "manager_breaks"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "manager_breaks_user_started_idx" ON "manager_breaks" USING btree ("user_id","started_at");--> statement-breakpoint
CREATE INDEX "manager_breaks_ended_idx" ON "manager_breaks" USING btree ("ended_at");