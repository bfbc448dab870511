CREATE TABLE "login_throttle" (
	"login" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_start" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"login" text NOT NULL,
	"password_hash" text NOT NULL,
	"password_hint" text DEFAULT '' NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"access_key" text NOT NULL,
	"telegram" text DEFAULT '' NOT NULL,
	"sip_login" text DEFAULT '' NOT NULL,
	"sip_password" text DEFAULT '' NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"is_online" boolean DEFAULT false NOT NULL,
	"getting_filter" integer DEFAULT 0 NOT NULL,
	"last_seen" timestamp with time zone,
	"balance_cents" integer DEFAULT 0 NOT NULL,
	"notify" boolean DEFAULT false NOT NULL,
	"last_notify_cents" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_login_unique" UNIQUE("login")
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"link" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scripts" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"remove_duplicates_in_base" boolean DEFAULT true NOT NULL,
	"remove_duplicates_across_bases" boolean DEFAULT false NOT NULL,
	"default_info" text DEFAULT '' NOT NULL,
	"rate_with_passport_cents" integer DEFAULT 0 NOT NULL,
	"rate_without_passport_cents" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statuses" (
	"id" serial PRIMARY KEY NOT NULL,
	"text" text NOT NULL,
	"button_text" text DEFAULT '' NOT NULL,
	"color" text DEFAULT '#f59e0b' NOT NULL,
	"is_hidden" boolean DEFAULT false NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"is_report_status" boolean DEFAULT false NOT NULL,
	"is_technical" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"template_fields" text DEFAULT '[]' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"database_id" integer NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"phone_key" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"age" text DEFAULT '' NOT NULL,
	"additional_info1" text DEFAULT '' NOT NULL,
	"additional_info2" text DEFAULT '' NOT NULL,
	"additional_info3" text DEFAULT '' NOT NULL,
	"additional_info4" text DEFAULT '' NOT NULL,
	"status_id" integer,
	"status_at" timestamp with time zone,
	"last_user_id" integer,
	"client_info" text DEFAULT '' NOT NULL,
	"held_by" integer,
	"held_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "databases" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"contacts_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "filter_databases" (
	"filter_id" integer NOT NULL,
	"database_id" integer NOT NULL,
	CONSTRAINT "filter_databases_filter_id_database_id_pk" PRIMARY KEY("filter_id","database_id")
);
--> statement-breakpoint
CREATE TABLE "filter_managers" (
	"filter_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "filter_managers_filter_id_user_id_pk" PRIMARY KEY("filter_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "filter_scripts" (
	"filter_id" integer NOT NULL,
	"script_id" integer NOT NULL,
	CONSTRAINT "filter_scripts_filter_id_script_id_pk" PRIMARY KEY("filter_id","script_id")
);
--> statement-breakpoint
CREATE TABLE "filter_statuses" (
	"filter_id" integer NOT NULL,
	"status_id" integer NOT NULL,
	CONSTRAINT "filter_statuses_filter_id_status_id_pk" PRIMARY KEY("filter_id","status_id")
);
--> statement-breakpoint
CREATE TABLE "filters" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"template_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"contact_id" bigint,
	"lead_event_id" bigint,
	"application_text" text NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"with_passport" boolean DEFAULT false NOT NULL,
	"amount_cents" integer DEFAULT 0 NOT NULL,
	"payment_id" integer,
	"forwarded_at" timestamp with time zone,
	"forward_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "balance_adjustments" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"by_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exports" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"database_ids" integer[] NOT NULL,
	"status_ids" integer[] NOT NULL,
	"is_exported" boolean DEFAULT false NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"claimed_by" text,
	"claimed_until" timestamp with time zone,
	"error" text,
	"file" "bytea",
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lead_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"contact_id" bigint,
	"database_id" integer,
	"user_id" integer,
	"filter_id" integer,
	"status_id" integer,
	"status_text" text NOT NULL,
	"is_report" boolean DEFAULT false NOT NULL,
	"is_technical" boolean DEFAULT false NOT NULL,
	"with_passport" boolean DEFAULT false NOT NULL,
	"client_info" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_database_id_databases_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."databases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_last_user_id_users_id_fk" FOREIGN KEY ("last_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_held_by_users_id_fk" FOREIGN KEY ("held_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_databases" ADD CONSTRAINT "filter_databases_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_databases" ADD CONSTRAINT "filter_databases_database_id_databases_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."databases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_managers" ADD CONSTRAINT "filter_managers_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_managers" ADD CONSTRAINT "filter_managers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_scripts" ADD CONSTRAINT "filter_scripts_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_scripts" ADD CONSTRAINT "filter_scripts_script_id_scripts_id_fk" FOREIGN KEY ("script_id") REFERENCES "public"."scripts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_statuses" ADD CONSTRAINT "filter_statuses_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filter_statuses" ADD CONSTRAINT "filter_statuses_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_lead_event_id_lead_events_id_fk" FOREIGN KEY ("lead_event_id") REFERENCES "public"."lead_events"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_adjustments" ADD CONSTRAINT "balance_adjustments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_adjustments" ADD CONSTRAINT "balance_adjustments_by_user_id_users_id_fk" FOREIGN KEY ("by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exports" ADD CONSTRAINT "exports_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_database_id_databases_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."databases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_events" ADD CONSTRAINT "lead_events_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_user_id_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_last_seen_idx" ON "users" USING btree ("last_seen");--> statement-breakpoint
CREATE INDEX "statuses_sort_order_idx" ON "statuses" USING btree ("sort_order");--> statement-breakpoint
CREATE INDEX "contacts_free_idx" ON "contacts" USING btree ("database_id","id") WHERE "contacts"."status_id" is null and "contacts"."held_by" is null;--> statement-breakpoint
CREATE INDEX "contacts_rework_idx" ON "contacts" USING btree ("database_id","status_id","status_at");--> statement-breakpoint
CREATE INDEX "contacts_held_by_idx" ON "contacts" USING btree ("held_by") WHERE "contacts"."held_by" is not null;--> statement-breakpoint
CREATE INDEX "contacts_phone_key_idx" ON "contacts" USING btree ("phone_key");--> statement-breakpoint
CREATE INDEX "contacts_status_id_idx" ON "contacts" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "contacts_last_user_id_idx" ON "contacts" USING btree ("last_user_id");--> statement-breakpoint
CREATE INDEX "filter_databases_database_id_idx" ON "filter_databases" USING btree ("database_id");--> statement-breakpoint
CREATE INDEX "filter_managers_user_id_idx" ON "filter_managers" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "filter_scripts_script_id_idx" ON "filter_scripts" USING btree ("script_id");--> statement-breakpoint
CREATE INDEX "filter_statuses_status_id_idx" ON "filter_statuses" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "filters_template_id_idx" ON "filters" USING btree ("template_id");--> statement-breakpoint
CREATE INDEX "applications_user_id_created_at_idx" ON "applications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "applications_payment_id_idx" ON "applications" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "applications_contact_id_idx" ON "applications" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "applications_lead_event_id_idx" ON "applications" USING btree ("lead_event_id");--> statement-breakpoint
CREATE INDEX "applications_created_at_idx" ON "applications" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "balance_adjustments_user_id_idx" ON "balance_adjustments" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "balance_adjustments_by_user_id_idx" ON "balance_adjustments" USING btree ("by_user_id");--> statement-breakpoint
CREATE INDEX "exports_pending_idx" ON "exports" USING btree ("is_exported","claimed_until");--> statement-breakpoint
CREATE INDEX "exports_created_by_idx" ON "exports" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "lead_events_created_at_idx" ON "lead_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "lead_events_user_id_created_at_idx" ON "lead_events" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "lead_events_contact_id_idx" ON "lead_events" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "lead_events_database_id_idx" ON "lead_events" USING btree ("database_id");--> statement-breakpoint
CREATE INDEX "lead_events_status_id_idx" ON "lead_events" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "lead_events_filter_id_idx" ON "lead_events" USING btree ("filter_id");--> statement-breakpoint
CREATE INDEX "payments_user_id_processed_at_idx" ON "payments" USING btree ("user_id","processed_at");