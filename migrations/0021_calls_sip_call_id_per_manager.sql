DROP INDEX "calls_sip_call_id_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "calls_user_id_sip_call_id_idx" ON "calls" USING btree ("user_id","sip_call_id") WHERE sip_call_id is not null;