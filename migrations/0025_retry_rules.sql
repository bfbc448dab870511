CREATE TABLE "filter_retry_rules" (
	"filter_id" integer NOT NULL,
	"status_id" integer NOT NULL,
	"delay_minutes" integer NOT NULL,
	"max_attempts" integer NOT NULL,
	"final_status_id" integer NOT NULL,
	CONSTRAINT "filter_retry_rules_filter_id_status_id_pk" PRIMARY KEY("filter_id","status_id"),
	CONSTRAINT "filter_retry_rules_delay_positive" CHECK ("filter_retry_rules"."delay_minutes" > 0),
	CONSTRAINT "filter_retry_rules_attempts_positive" CHECK ("filter_retry_rules"."max_attempts" >= 1)
);
--> statement-breakpoint
ALTER TABLE "filters" ADD COLUMN "retry_counted_by" text DEFAULT 'presses' NOT NULL;--> statement-breakpoint
ALTER TABLE "lead_events" ADD COLUMN "attempt" integer;--> statement-breakpoint
ALTER TABLE "lead_events" ADD COLUMN "attempts_max" integer;--> statement-breakpoint
ALTER TABLE "lead_events" ADD COLUMN "final_status_text" text;--> statement-breakpoint
ALTER TABLE "filter_retry_rules" ADD CONSTRAINT "filter_retry_rules_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_retry_rules" ADD CONSTRAINT "filter_retry_rules_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_retry_rules" ADD CONSTRAINT "filter_retry_rules_final_status_id_statuses_id_fk" FOREIGN KEY ("final_status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "filter_retry_rules_status_id_idx" ON "filter_retry_rules" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "filter_retry_rules_final_status_id_idx" ON "filter_retry_rules" USING btree ("final_status_id");