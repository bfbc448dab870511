CREATE TABLE "callbacks" (
	"id" serial PRIMARY KEY NOT NULL,
	"contact_id" bigint NOT NULL,
	"database_id" integer NOT NULL,
	"user_id" integer,
	"filter_id" integer,
	"status_text" text DEFAULT '' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"handed_at" timestamp with time zone,
	"handed_to" integer
);
--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "callback_grace_minutes" integer DEFAULT 15 NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "asks_callback" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "callbacks" ADD CONSTRAINT "callbacks_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "callbacks" ADD CONSTRAINT "callbacks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "callbacks" ADD CONSTRAINT "callbacks_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "callbacks" ADD CONSTRAINT "callbacks_handed_to_users_id_fk" FOREIGN KEY ("handed_to") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "callbacks_pending_user_idx" ON "callbacks" USING btree ("user_id","due_at") WHERE "callbacks"."handed_at" is null;--> statement-breakpoint
CREATE INDEX "callbacks_pending_due_idx" ON "callbacks" USING btree ("due_at") WHERE "callbacks"."handed_at" is null;--> statement-breakpoint
CREATE INDEX "callbacks_pending_contact_idx" ON "callbacks" USING btree ("contact_id") WHERE "callbacks"."handed_at" is null;