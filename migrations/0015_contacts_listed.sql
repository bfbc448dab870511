DROP INDEX "contacts_free_idx";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "listed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Hand-written from here to the index: contacts whose number is listed already (decision 036).
UPDATE "contacts" SET "listed" = true WHERE "phone_key" IN (SELECT "phone_key" FROM "do_not_call");--> statement-breakpoint
CREATE INDEX "contacts_free_idx" ON "contacts" USING btree ("database_id","id") WHERE "contacts"."status_id" is null and "contacts"."held_by" is null and not "contacts"."listed";--> statement-breakpoint
-- Hand-written: contacts.listed follows do_not_call, whichever statement changes the list. Marking skips rows
-- another transaction has locked (a turn claiming one), so a listing never waits on a turn and never deadlocks
-- with one; such a row keeps listed = false and the claim's own check (mayBeCalled) still leaves it out.
-- Unmarking waits for them: a contact wrongly marked would never be handed out again.
CREATE FUNCTION "do_not_call_mark_contacts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "contacts" SET "listed" = true WHERE "id" IN (
    SELECT c."id" FROM "contacts" c WHERE c."phone_key" IN (SELECT "phone_key" FROM "added") AND NOT c."listed"
    ORDER BY c."id" FOR UPDATE SKIP LOCKED);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "do_not_call_mark_contacts" AFTER INSERT ON "do_not_call" REFERENCING NEW TABLE AS "added"
  FOR EACH STATEMENT EXECUTE FUNCTION "do_not_call_mark_contacts"();--> statement-breakpoint
CREATE FUNCTION "do_not_call_unmark_contacts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "contacts" SET "listed" = false WHERE "listed" AND "phone_key" IN (SELECT "phone_key" FROM "removed");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "do_not_call_unmark_contacts" AFTER DELETE ON "do_not_call" REFERENCING OLD TABLE AS "removed"
  FOR EACH STATEMENT EXECUTE FUNCTION "do_not_call_unmark_contacts"();
