import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, queryRows } from "../../../db/client";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { badRequest, conflict, notFound } from "../errors";
import { filterNotFound, filterUnavailable } from "../filters/filters";
import { contactIdSchema, idSchema, parseInput } from "../validation";
import { CONTACT_COLUMNS, type Lead, presentLead } from "./allocation";

export const REPORT_CARD_EMPTY = "Заполните карточку клиента";

/** SPEC PUT /status/update-and-get-lead: statusText, contactId, userId, passport, filterId, clientInfo. */
export const recordStatusSchema = z.object({
  statusText: z.string({ error: "Выберите статус" }).trim().min(1, { error: "Выберите статус" }).max(200),
  contactId: contactIdSchema,
  userId: idSchema,
  passport: z
    .union([z.string(), z.boolean(), z.null()], { error: "Неверное значение паспорта" })
    .optional()
    .transform((v) => (typeof v === "boolean" ? (v ? "+" : "") : (v ?? "").trim())),
  filterId: idSchema,
  clientInfo: z
    .string({ error: "Неверный текст карточки клиента" })
    .max(20_000, { error: "Слишком длинная карточка клиента (не более 20000 символов)" })
    .nullish()
    .transform((v) => (v ?? "").trim()),
});

export interface RecordStatusResult {
  /** The next lead, or null when nothing is left. */
  lead: Lead | null;
  /** The application a report status created (forward it with forwardApplication). */
  applicationId: number | null;
  status: { id: number; text: string; isReportStatus: boolean };
}

export const leadNotHeld = () =>
  conflict("Этот клиент уже не закреплён за вами: обновите страницу, чтобы получить следующего", "lead_not_held");

/** What the turn statement answers: what its checks found, and the next lead when the press was recorded. */
interface TurnRow {
  user_found: boolean;
  filter_found: boolean;
  filter_open: boolean;
  status_id: number | null;
  status_text: string | null;
  status_report: boolean | null;
  contact_found: boolean;
  held_by: number | null;
  event_id: number | string | null;
  application_id: number | null;
  id: number | string | null;
  database_id: number | null;
  name: string;
  phone: string;
  city: string;
  address: string;
  additional_info1: string;
  additional_info2: string;
  additional_info3: string;
  additional_info4: string;
}

/**
 * The whole status press as one statement (one round trip, atomic on its own, so no BEGIN/COMMIT): it locks the
 * manager's row and then the contact's (the order every lead call keeps), checks the topic, the status, the hold
 * and the card, and only when all pass appends the lead event, sets the contact's status and lets it go, credits
 * a report (application with the rate in force), and claims the next contact of the topic — the same three tiers
 * as `claimStatements`, tried in order inside one COALESCE (a tier runs only when the one before found nothing).
 * The topic's bases and re-work statuses are read in the statement itself, so a change of the topic on any
 * instance applies to the next press. It answers what the checks found, so the caller raises the right error
 * (nothing was written then).
 */
export function turnStatement(input: {
  userId: number;
  filterId: number;
  contactId: number;
  statusText: string;
  clientInfo: string;
  withPassport: boolean;
  holdMinutes: number;
}): SQL {
  const userId = sql`${input.userId}::int`;
  const filterId = sql`${input.filterId}::int`;
  const contactId = sql`${input.contactId}::bigint`;
  const statusText = sql`${input.statusText}::text`;
  const clientInfo = sql`${input.clientInfo}::text`;
  const withPassport = sql`${input.withPassport}::boolean`;
  const CONTACT_COLUMNS_OF_CONTACTS = sql.raw(
    "contacts.id, contacts.database_id, contacts.name, contacts.phone, contacts.city, contacts.address, contacts.additional_info1, contacts.additional_info2, contacts.additional_info3, contacts.additional_info4",
  );
  const hold = sql`held_by = ${userId}, held_until = now() + make_interval(mins => ${input.holdMinutes}::int)`;
  return sql`
    with u as materialized (select id from users where id = ${userId} for update),
    f as materialized (
      select f.is_active and fm.user_id is not null as open
      from filters f left join filter_managers fm on fm.filter_id = f.id and fm.user_id = ${userId}
      where f.id = ${filterId}),
    s as materialized (
      select id, text, is_report_status, is_technical from statuses
      where text = ${statusText} or button_text = ${statusText}
      order by (text = ${statusText}) desc, id limit 1),
    c as materialized (
      select id, database_id, held_by, phone, client_info from contacts
      where id = ${contactId} and exists (select 1 from u) for update),
    ok as materialized (
      select c.id, c.database_id, c.phone, c.client_info, s.id as status_id, s.text, s.is_report_status, s.is_technical
      from c, s, f
      where f.open and c.held_by = ${userId} and (not s.is_report_status or ${clientInfo} <> '')),
    ev as (
      insert into lead_events (contact_id, database_id, user_id, filter_id, status_id, status_text, is_report, is_technical, with_passport, client_info)
      select id, database_id, ${userId}, ${filterId}, status_id, text, is_report_status, is_technical, ${withPassport}, ${clientInfo} from ok
      returning id),
    amt as materialized (
      select greatest(coalesce((
        select case when ${withPassport} then rate_with_passport_cents else rate_without_passport_cents end
        from settings where id = 1), 0), 0) as amount
      from ok where ok.is_report_status),
    credit as (
      update users set balance_cents = balance_cents + amt.amount, notify = true, last_notify_cents = amt.amount, updated_at = now()
      from amt where users.id = ${userId} and amt.amount > 0
      returning users.id),
    app as (
      insert into applications (user_id, contact_id, lead_event_id, application_text, phone, with_passport, amount_cents)
      select ${userId}, ok.id, ev.id, ${clientInfo}, ok.phone, ${withPassport}, amt.amount from ok, ev, amt
      returning id),
    fd as materialized (select array(select database_id from filter_databases where filter_id = ${filterId} order by 1) as ids),
    fs as materialized (select array(select status_id from filter_statuses where filter_id = ${filterId} order by 1) as ids),
    claim as (
      update contacts set ${hold} where id = coalesce(
        (select id from contacts
          where held_by is not null and held_until < now() and id <> ${contactId}
            and database_id = any((select ids from fd)::int[])
            and (status_id is null or status_id = any((select ids from fs)::int[]))
          order by id limit 1 for update skip locked),
        (select id from contacts
          where database_id = any((select ids from fd)::int[]) and status_id is null and held_by is null
          order by database_id, id limit 1 for update skip locked),
        (select id from contacts
          where database_id = any((select ids from fd)::int[]) and status_id = any((select ids from fs)::int[])
            and held_by is null and id <> ${contactId}
          order by status_at nulls first, id limit 1 for update skip locked))
      and exists (select 1 from ok)
      returning ${CONTACT_COLUMNS}),
    keep as materialized (
      -- Nothing else to claim, and the contact's new status is one the topic works again: the original order
      -- (status, release, then the claim) would hand this very contact straight back, so it stays held.
      select ok.id from ok
      where not exists (select 1 from claim) and ok.database_id = any((select ids from fd)::int[])
        and ok.status_id = any((select ids from fs)::int[])),
    upd as (
      update contacts set status_id = ok.status_id, status_at = now(), last_user_id = ${userId},
        client_info = case when ${clientInfo} <> '' then ${clientInfo} else ok.client_info end,
        held_by = case when exists (select 1 from keep) then ${userId} end,
        held_until = case when exists (select 1 from keep) then now() + make_interval(mins => ${input.holdMinutes}::int) end
      from ok where contacts.id = ok.id
      returning ${CONTACT_COLUMNS_OF_CONTACTS}, contacts.held_by)
    select exists (select 1 from u) as user_found, exists (select 1 from f) as filter_found,
      coalesce((select open from f), false) as filter_open,
      (select id from s) as status_id, (select text from s) as status_text, (select is_report_status from s) as status_report,
      exists (select 1 from c) as contact_found, (select held_by from c) as held_by,
      (select id from ev) as event_id, (select id from app) as application_id,
      next.*
    from (select 1) one left join (
      select * from claim
      union all
      select id, database_id, name, phone, city, address, additional_info1, additional_info2, additional_info3, additional_info4
      from upd where held_by is not null) next on true`;
}

/**
 * A status press (DESIGN §4): checks the manager holds the contact, appends the lead event, sets the contact's
 * status and lets it go; for a report status stores the application and credits the manager; then claims and
 * returns the next lead. All of it is `turnStatement`: one statement, so one round trip and atomic.
 */
export async function recordStatus(
  db: Db,
  actor: Actor,
  holdMinutes: number,
  rawInput: unknown,
): Promise<RecordStatusResult> {
  const input = parseInput(recordStatusSchema, rawInput);
  requireSelfOrAdmin(actor, input.userId);
  const [row] = await queryRows<TurnRow>(
    db,
    turnStatement({
      userId: input.userId,
      filterId: input.filterId,
      contactId: input.contactId,
      statusText: input.statusText,
      clientInfo: input.clientInfo,
      withPassport: input.passport !== "",
      holdMinutes,
    }),
  );
  // The checks in the order the press has always made them (the first failing one answers).
  if (!row.user_found) throw notFound("Пользователь не найден", "user_not_found");
  if (!row.filter_found) throw filterNotFound();
  if (!row.filter_open) throw filterUnavailable();
  if (row.status_id == null) throw badRequest("Такого статуса нет", "status_not_found");
  if (!row.contact_found) throw notFound("Клиент не найден", "contact_not_found");
  if (row.held_by !== input.userId) throw leadNotHeld();
  if (row.status_report && !input.clientInfo) throw badRequest(REPORT_CARD_EMPTY, "client_card_empty");
  if (row.event_id == null) throw new Error("status press: the checks passed but nothing was recorded");
  return {
    lead: row.id == null ? null : presentLead(row as Parameters<typeof presentLead>[0]),
    applicationId: row.application_id == null ? null : Number(row.application_id),
    status: { id: row.status_id, text: row.status_text ?? "", isReportStatus: Boolean(row.status_report) },
  };
}
