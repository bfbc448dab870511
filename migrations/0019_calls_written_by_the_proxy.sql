ALTER TABLE "calls" ADD COLUMN "sip_call_id" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "by_proxy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "calls_sip_call_id_idx" ON "calls" USING btree ("sip_call_id") WHERE sip_call_id is not null;