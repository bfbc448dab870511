-- Hand-written: the statement-level check of migration 0007 (decision 017) looked up "databases" once per inserted
-- row (an anti-join over the whole transition table); an import's statement names one base, so it now takes the
-- distinct base ids first and checks and locks those. Same rule, same error.
CREATE OR REPLACE FUNCTION "contacts_check_base"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  SELECT array_agg(DISTINCT "database_id") INTO ids FROM "inserted";
  PERFORM 1 FROM "databases" WHERE "id" = ANY (ids) FOR KEY SHARE;
  IF EXISTS (SELECT 1 FROM unnest(ids) AS i("database_id") WHERE NOT EXISTS (SELECT 1 FROM "databases" d WHERE d."id" = i."database_id")) THEN
    RAISE EXCEPTION 'insert on table "contacts" violates the reference to "databases"' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
