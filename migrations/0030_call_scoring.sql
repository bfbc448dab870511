CREATE TABLE "call_comments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"call_id" bigint NOT NULL,
	"author_id" integer,
	"at_seconds" integer NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "call_comments_at" CHECK ("call_comments"."at_seconds" >= 0)
);
--> statement-breakpoint
CREATE TABLE "call_scores" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"call_id" bigint NOT NULL,
	"manager_id" integer,
	"filter_id" integer,
	"scorer_id" integer,
	"scored_at" timestamp with time zone DEFAULT now() NOT NULL,
	"answers" jsonb NOT NULL,
	"score" integer NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"disputed_at" timestamp with time zone,
	"dispute_comment" text,
	"decision" text,
	"decided_at" timestamp with time zone,
	"decider_id" integer,
	"decision_reason" text,
	"rescore_answers" jsonb,
	"rescore" integer,
	CONSTRAINT "call_scores_score" CHECK ("call_scores"."score" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "scorecard_criteria" (
	"id" serial PRIMARY KEY NOT NULL,
	"filter_id" integer NOT NULL,
	"position" integer NOT NULL,
	"text" text NOT NULL,
	"weight" integer NOT NULL,
	"critical" boolean DEFAULT false NOT NULL,
	CONSTRAINT "scorecard_criteria_weight" CHECK ("scorecard_criteria"."weight" between 1 and 100)
);
--> statement-breakpoint
ALTER TABLE "call_comments" ADD CONSTRAINT "call_comments_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_comments" ADD CONSTRAINT "call_comments_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_scores" ADD CONSTRAINT "call_scores_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_scores" ADD CONSTRAINT "call_scores_manager_id_users_id_fk" FOREIGN KEY ("manager_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_scores" ADD CONSTRAINT "call_scores_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_scores" ADD CONSTRAINT "call_scores_scorer_id_users_id_fk" FOREIGN KEY ("scorer_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_scores" ADD CONSTRAINT "call_scores_decider_id_users_id_fk" FOREIGN KEY ("decider_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scorecard_criteria" ADD CONSTRAINT "scorecard_criteria_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_comments_call_id_idx" ON "call_comments" USING btree ("call_id","at_seconds");--> statement-breakpoint
CREATE UNIQUE INDEX "call_scores_call_id_idx" ON "call_scores" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "call_scores_manager_id_scored_at_idx" ON "call_scores" USING btree ("manager_id","scored_at");--> statement-breakpoint
CREATE INDEX "call_scores_scored_at_idx" ON "call_scores" USING btree ("scored_at");--> statement-breakpoint
CREATE INDEX "call_scores_open_disputes_idx" ON "call_scores" USING btree ("disputed_at") WHERE disputed_at is not null and decision is null;--> statement-breakpoint
CREATE INDEX "scorecard_criteria_filter_id_idx" ON "scorecard_criteria" USING btree ("filter_id","position");