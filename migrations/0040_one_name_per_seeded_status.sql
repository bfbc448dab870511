-- Issue 41 §11, decision 081: each status has one name. The seed gave two statuses two names (text «Не дозвонился»,
-- button «Недозвон»; «Не интересно», «Отказ»); it now gives each its button's name. This gives the same name to such
-- a status in a database seeded before, where the admin changed neither of its names and no other status has
-- either name already, and to its recorded presses (their text, the rollup through lead_events' update trigger,
-- a retry rule's final status, a callback), so the dashboard, the history and the statistics count it under one
-- name. A status whose admin renamed either name is left as he made it.
DO $$
DECLARE
  pair record;
  seeded_id integer;
BEGIN
  FOR pair IN SELECT * FROM (VALUES ('Не дозвонился', 'Недозвон'), ('Не интересно', 'Отказ')) AS p(old_text, new_text) LOOP
    SELECT min(id) INTO seeded_id FROM "statuses" WHERE "text" = pair.old_text AND "button_text" = pair.new_text;
    CONTINUE WHEN seeded_id IS NULL;
    CONTINUE WHEN EXISTS (
      SELECT 1 FROM "statuses"
      WHERE "id" <> seeded_id AND ("text" IN (pair.old_text, pair.new_text) OR "button_text" IN (pair.old_text, pair.new_text))
    );
    UPDATE "statuses" SET "text" = pair.new_text, "updated_at" = now() WHERE "id" = seeded_id;
    UPDATE "lead_events" SET "status_text" = pair.new_text WHERE "status_id" = seeded_id AND "status_text" = pair.old_text;
    UPDATE "lead_events" SET "final_status_text" = pair.new_text WHERE "final_status_text" = pair.old_text;
    UPDATE "callbacks" SET "status_text" = pair.new_text WHERE "status_text" = pair.old_text;
  END LOOP;
  -- The rollup's rows of the old names are 0 now: gone, as if the presses had always had the one name.
  DELETE FROM "lead_event_day_counts" WHERE "count" = 0;
END $$;
