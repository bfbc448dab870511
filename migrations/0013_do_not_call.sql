CREATE TABLE "do_not_call" (
	"id" serial PRIMARY KEY NOT NULL,
	"phone_key" text NOT NULL,
	"phone" text NOT NULL,
	"added_by" integer,
	"added_by_login" text DEFAULT '' NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "is_do_not_call" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "do_not_call" ADD CONSTRAINT "do_not_call_added_by_users_id_fk" FOREIGN KEY ("added_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "do_not_call_phone_key_idx" ON "do_not_call" USING btree ("phone_key");