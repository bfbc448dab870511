CREATE TABLE "recording_plays" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"call_id" bigint NOT NULL,
	"user_id" integer,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"download" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "record_calls" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "recording_retention_days" integer;--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "managers_hear_recordings" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "filter_id" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_file" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_ms" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_error" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "recording_plays" ADD CONSTRAINT "recording_plays_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recording_plays" ADD CONSTRAINT "recording_plays_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recording_plays_call_id_idx" ON "recording_plays" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "recording_plays_at_idx" ON "recording_plays" USING btree ("at");--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_recording_todo_idx" ON "calls" USING btree ("id") WHERE recording = 'pending';--> statement-breakpoint
CREATE INDEX "calls_recording_ready_idx" ON "calls" USING btree ("started_at") WHERE recording = 'ready';