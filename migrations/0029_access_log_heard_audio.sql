ALTER TABLE "listen_sessions" ADD COLUMN "heard_ms" integer;--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD COLUMN "first_heard_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD COLUMN "last_heard_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "recording_plays" ADD COLUMN "play_key" text;--> statement-breakpoint
ALTER TABLE "recording_plays" ADD COLUMN "played_ms" integer;--> statement-breakpoint
CREATE INDEX "listen_sessions_admin_id_started_at_idx" ON "listen_sessions" USING btree ("admin_id","started_at");--> statement-breakpoint
CREATE INDEX "listen_sessions_manager_id_started_at_idx" ON "listen_sessions" USING btree ("manager_id","started_at");--> statement-breakpoint
CREATE INDEX "listen_sessions_call_id_idx" ON "listen_sessions" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "recording_plays_user_id_at_idx" ON "recording_plays" USING btree ("user_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "recording_plays_user_id_play_key_idx" ON "recording_plays" USING btree ("user_id","play_key") WHERE play_key is not null;