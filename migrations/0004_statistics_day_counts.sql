CREATE TABLE "lead_event_day_counts" (
	"day" date NOT NULL,
	"user_id" integer NOT NULL,
	"status_text" text NOT NULL,
	"is_technical" boolean NOT NULL,
	"is_report" boolean NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "lead_event_day_counts_day_user_id_status_text_is_technical_is_report_pk" PRIMARY KEY("day","user_id","status_text","is_technical","is_report")
);
--> statement-breakpoint
CREATE INDEX "lead_event_day_counts_user_id_idx" ON "lead_event_day_counts" USING btree ("user_id");--> statement-breakpoint
-- Statement-level triggers keep the rollup equal to lead_events (decision 009): a bulk insert or a user's
-- deletion (user_id set null) costs one grouped upsert, not one per row.
CREATE FUNCTION "lead_event_day_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO "lead_event_day_counts" AS c ("day", "user_id", "status_text", "is_technical", "is_report", "count")
    SELECT ("created_at" AT TIME ZONE 'Europe/Kyiv')::date, coalesce("user_id", 0), "status_text", "is_technical", "is_report", -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT ("day", "user_id", "status_text", "is_technical", "is_report") DO UPDATE SET "count" = c."count" + excluded."count";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "lead_event_day_counts" AS c ("day", "user_id", "status_text", "is_technical", "is_report", "count")
    SELECT ("created_at" AT TIME ZONE 'Europe/Kyiv')::date, coalesce("user_id", 0), "status_text", "is_technical", "is_report", count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT ("day", "user_id", "status_text", "is_technical", "is_report") DO UPDATE SET "count" = c."count" + excluded."count";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "lead_events_day_counts_insert" AFTER INSERT ON "lead_events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_event_day_counts_apply"();
--> statement-breakpoint
CREATE TRIGGER "lead_events_day_counts_update" AFTER UPDATE ON "lead_events"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_event_day_counts_apply"();
--> statement-breakpoint
CREATE TRIGGER "lead_events_day_counts_delete" AFTER DELETE ON "lead_events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_event_day_counts_apply"();
--> statement-breakpoint
CREATE FUNCTION "lead_event_day_counts_clear"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE "lead_event_day_counts";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "lead_events_day_counts_truncate" AFTER TRUNCATE ON "lead_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_event_day_counts_clear"();
--> statement-breakpoint
INSERT INTO "lead_event_day_counts" ("day", "user_id", "status_text", "is_technical", "is_report", "count")
SELECT ("created_at" AT TIME ZONE 'Europe/Kyiv')::date, coalesce("user_id", 0), "status_text", "is_technical", "is_report", count(*)
FROM "lead_events" GROUP BY 1, 2, 3, 4, 5;
