ALTER TABLE "contacts" DROP CONSTRAINT "contacts_database_id_databases_id_fk";--> statement-breakpoint
-- Every contact belongs to an existing base, checked once per insert statement (decision 017). Locking the bases
-- FOR KEY SHARE is what the foreign key did: a concurrent delete of one of them waits for this transaction.
CREATE FUNCTION "contacts_check_base"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "databases" WHERE "id" IN (SELECT DISTINCT "database_id" FROM "inserted") FOR KEY SHARE;
  IF EXISTS (SELECT 1 FROM "inserted" i WHERE NOT EXISTS (SELECT 1 FROM "databases" d WHERE d."id" = i."database_id")) THEN
    RAISE EXCEPTION 'insert on table "contacts" violates the reference to "databases"' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "contacts_base_exists" AFTER INSERT ON "contacts" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "contacts_check_base"();--> statement-breakpoint
-- A contact never moves to another base. The trigger fires only for updates that name database_id, so a status
-- press (which does not) pays nothing for it.
CREATE FUNCTION "contacts_keep_base"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."database_id" IS DISTINCT FROM OLD."database_id" THEN
    RAISE EXCEPTION 'a contact cannot move to another base' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "contacts_keep_base" BEFORE UPDATE OF "database_id" ON "contacts"
  FOR EACH ROW EXECUTE FUNCTION "contacts_keep_base"();--> statement-breakpoint
-- Deleting a base deletes its contacts, as ON DELETE CASCADE did.
CREATE FUNCTION "databases_delete_contacts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "contacts" WHERE "database_id" IN (SELECT "id" FROM "deleted");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "databases_delete_contacts" AFTER DELETE ON "databases" REFERENCING OLD TABLE AS "deleted"
  FOR EACH STATEMENT EXECUTE FUNCTION "databases_delete_contacts"();
