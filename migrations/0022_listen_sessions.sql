CREATE TABLE "listen_sessions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"admin_id" integer,
	"manager_id" integer,
	"call_id" bigint,
	"kind" text DEFAULT 'listen' NOT NULL,
	"relay_tag" text,
	"hear_tag" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_admin_id_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_manager_id_users_id_fk" FOREIGN KEY ("manager_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listen_sessions_started_at_idx" ON "listen_sessions" USING btree ("started_at");