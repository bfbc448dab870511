-- Issue 41 §7: a callback scheduled before 0035 has no lead_event_id, so when it is handed out the lead panel cannot
-- find it («Перезвон на HH:MM» is read through the contact's latest lead event) and the history shows only «Статус: …».
-- Its press is derivable: the status press has always inserted the lead event and the callback in one statement (one
-- transaction, one now()), so the press's event is the contact's event of that same moment (of the same status text
-- first, should a contact have two). A callback without such an event (a missed inbound call's, issue 42, made
-- without a press) keeps null. Its note stays empty: none was written before 0035.
UPDATE "callbacks" AS cb
SET "lead_event_id" = (
  SELECT e."id" FROM "lead_events" e
  WHERE e."contact_id" = cb."contact_id" AND e."created_at" = cb."created_at"
  ORDER BY (e."status_text" = cb."status_text") DESC, e."id" DESC
  LIMIT 1
)
WHERE cb."lead_event_id" IS NULL
  AND EXISTS (SELECT 1 FROM "lead_events" e WHERE e."contact_id" = cb."contact_id" AND e."created_at" = cb."created_at");
