import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, queryRows } from "../../../db/client";
import { type Columns, renderedOnce, type RowOf, selectList, selectRows } from "../../../db/typed-sql";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { badRequest, conflict, notFound } from "../errors";
import { filterNotFound, filterUnavailable } from "../filters/filters";
import { contactIdSchema, idSchema, parseInput } from "../validation";
import { onBreak } from "../breaks/breaks";
import { listContactPhones, mayBeCalled } from "../dnc/dnc";
import { CONTACT_COLUMNS, claimNext, type ContactRow, type Lead, loadWorkSet, presentLead } from "./allocation";
import { attemptColumns, attemptOf, attemptsSoFar, leadInTopic, reworkStatusIds } from "./retry";
import { cardColumns, type CardFacts } from "./card-start";
import { leadViewColumns, type LeadViewFacts } from "./lead-view";
import { callbackAtSchema, callbackNoteSchema } from "./callback-time";
import { clientInHours, hoursOfStatementRow } from "../filters/calling-hours";
import { consentAllows } from "../filters/consent";
import { underContactLimits } from "../filters/contact-limits";
import { claimCtes, GRACE_FROM_SETTINGS } from "./tiers";
import { CARD_EMPTY } from "../../../common/client-card";
import { formatKyiv } from "../../../common/business-time";
import { FORWARD_OK } from "./applications";
import { sessionIsLive } from "../auth/live-session";
import { clientJson, enqueueFrom } from "../webhooks/queue";

export const CALLBACK_TIME_MISSING = "Укажите время перезвона";

export const STATUS_MISSING = "Выберите статус";

/**
 * Which status a press names (decision 064): its id (the lead panel, and any client that has the list of statuses),
 * or its text as SPEC's statusText (older clients), which matches the status's text first, then its button text.
 */
export type StatusRef = { id: number } | { text: string };

/**
 * SPEC PUT /status/update-and-get-lead: statusText, contactId, userId, passport, filterId, clientInfo; statusId
 * besides statusText (decision 064). Parsed to `status`, the one StatusRef the turn reads: the id when given.
 */
const pressFields = z.object({
  statusId: idSchema.nullish().describe("id статуса (GET /status/visible); если указан, statusText не нужен"),
  statusText: z
    .string({ error: STATUS_MISSING })
    .trim()
    .max(200)
    .nullish()
    .describe("Текст статуса или текст его кнопки (для клиентов, которые не передают statusId)"),
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
  /** For a status that asks for a callback time: when to call back (ISO 8601 with an offset). */
  callbackAt: callbackAtSchema
    .nullish()
    .describe("Для статуса, который спрашивает время перезвона: когда перезвонить (ISO 8601 со смещением, например 2026-11-25T10:00:00+02:00)"),
  /** What to say when it is due (issue 41 §7): shown at the top of the card then, in the history, on Мои перезвоны. */
  callbackNote: callbackNoteSchema.describe("Заметка к перезвону: что сказать клиенту, когда перезвон наступит"),
});

/** The press's status as the one StatusRef the turn reads: its id when given, else its text. */
function withStatusRef<T extends { statusId?: number | null; statusText?: string | null }>(
  { statusId, statusText, ...rest }: T,
  ctx: z.RefinementCtx,
) {
  const status: StatusRef | null = statusId ? { id: statusId } : statusText ? { text: statusText } : null;
  if (!status) {
    ctx.addIssue({ code: "custom", message: STATUS_MISSING, path: ["statusId"] });
    return z.NEVER;
  }
  return { ...rest, status };
}

export const recordStatusSchema = pressFields.transform(withStatusRef);

/** The lead panel's press: its user and topic are its session's (decision 069). */
const sessionPressSchema = pressFields.omit({ userId: true, filterId: true }).transform(withStatusRef);

/** The `s` row's choice of status: by id, or by text and then button text (the lowest id of equals). */
function pressedStatusWhere(ref: StatusRef): SQL {
  if ("id" in ref) return sql`where id = ${ref.id}::int`;
  const text = sql`${ref.text}::text`;
  return sql`where text = ${text} or button_text = ${text} order by (text = ${text}) desc, id limit 1`;
}

export interface RecordStatusResult {
  /** The next lead with its attempt under a retry rule, or null when nothing is left. */
  lead: Lead | null;
  /** What the lead panel shows of that lead, read with it (leadView's facts); null when the lead was read apart. */
  view: LeadViewFacts | null;
  /** What its card starts with (issue 41), read with it (the API's turn gives it, withCardFields); null when read apart. */
  cardFacts: CardFacts | null;
  /** The topic it is from. */
  filterId: number;
  /** The application a report status created (pressOutcomeMessage forwards it). */
  applicationId: number | null;
  status: { id: number; text: string; isReportStatus: boolean; isDoNotCall: boolean; asksCallback: boolean };
  /** The callback the press scheduled. */
  callback: { dueAt: string } | null;
  /** He is on a break: the press was recorded and no next lead was handed out (decision 038). */
  onBreak: boolean;
  /** The next lead is a callback the turn handed out (the menu's count of due callbacks changed). */
  callbackHanded: boolean;
}

/** A press that names no status there is (the panel's action asks the same before it asks anything). */
export const pressedStatusNotFound = () => badRequest("Такого статуса нет", "status_not_found");
/** A report status pressed on the lead panel before its confirmation (the panel asks it, then presses again). */
export const reportNotConfirmed = () => badRequest("Подтвердите отправку заявки", "report_not_confirmed");

export const leadNotHeld = () => conflict("Этот клиент уже не закреплён за вами: обновите страницу, чтобы получить следующего", "lead_not_held");

/** The next lead's contact columns, null when the turn handed out none. */
type NextLeadColumns = { [K in keyof ContactRow]: ContactRow[K] | null };

/**
 * What the turn statement answers besides the next lead: what its checks found and what it wrote. Declared once,
 * with each column's type: the statement's SELECT list is made from it (selectList) and TurnRow from it (RowOf).
 */
const TURN_COLUMNS = {
  /** The presser as the statement found him (by his session on the lead panel): his id, topic, login, role; null
   * when there is no such user or no such live session. */
  user_id: sql<number | null>`(select id from u)`,
  user_filter_id: sql<number | null>`(select filter_id from u)`,
  user_login: sql<string | null>`(select login from u)`,
  user_admin: sql<boolean | null>`(select is_admin from u)`,
  on_break: sql<boolean>`(select paused from brk)`,
  filter_found: sql<boolean>`exists (select 1 from f)`,
  filter_open: sql<boolean>`coalesce((select open from f), false)`,
  status_id: sql<number | null>`(select id from s)`,
  status_text: sql<string | null>`(select text from s)`,
  status_report: sql<boolean | null>`(select is_report_status from s)`,
  status_dnc: sql<boolean | null>`(select is_do_not_call from s)`,
  /** The pressed contact's phone field, when its status put it on the do-not-call list. */
  dnc_phone: sql<string | null>`(select phone from ok where ok.is_do_not_call)`,
  status_callback: sql<boolean | null>`(select asks_callback from s)`,
  callback_at: sql<Date | string | null>`(select due_at from later)`,
  contact_found: sql<boolean>`exists (select 1 from c)`,
  held_by: sql<number | null>`(select held_by from c)`,
  event_id: sql<number | string | null>`(select id from ev)`,
  application_id: sql<number | null>`(select id from app)`,
  /** The claim handed out a callback (its `handed` CTE marked one taken). */
  callback_handed: sql<boolean>`exists (select 1 from handed)`,
} satisfies Columns;

/**
 * What the turn statement answers: TURN_COLUMNS, and the next lead when the press was recorded, with its attempt
 * and, for the panel, the rest of what it shows of it (null columns without a next lead).
 */
type TurnRow = RowOf<typeof TURN_COLUMNS> &
  Partial<Omit<LeadViewFacts, "attempts_done" | "attempts_of">> &
  Pick<LeadViewFacts, "attempts_done" | "attempts_of"> &
  NextLeadColumns;

/**
 * Who presses. The API names the user and topic (its caller's session was checked before: SPEC's body carries
 * them). The lead panel names its session: the statement finds the user of that live session and his topic itself,
 * so the press is one query (decision 069), and it records nothing when the session is not live.
 */
export type Presser = { userId: number; filterId: number } | { session: string };

/** SQL: the `u` row of a presser, locked (the manager's row first: the order every lead call keeps). */
function presserRow(presser: Presser): SQL {
  if ("session" in presser) {
    // A live session (sessionIsLive, Lucia's rule). Its extension in the second half of its life is left to the
    // page's own requests, which all validate through Lucia.
    return sql`select users.id, users.getting_filter as filter_id, users.login, users.is_admin
      from sessions join users on users.id = sessions.user_id
      where sessions.id = ${presser.session}::text and ${sessionIsLive()}
      for update of users`;
  }
  return sql`select id, ${presser.filterId}::int as filter_id, login, is_admin from users where id = ${presser.userId}::int for update`;
}

interface TurnStatementInput {
  presser: Presser;
  contactId: number;
  status: StatusRef;
  clientInfo: string;
  withPassport: boolean;
  holdMinutes: number;
  /** When the pressed status asks for a callback: the time it is due. */
  callbackAt?: Date | null;
  /** ...and the manager's note for it. */
  callbackNote?: string;
  /** Read what the lead panel shows of the next lead too (LeadViewFacts); otherwise its attempt only. */
  panelView?: boolean;
  /** False: a report status is not recorded (the lead panel asks its confirmation first). */
  reportConfirmed?: boolean;
}

/**
 * The whole status press as one statement (one round trip, atomic on its own, so no BEGIN/COMMIT): it locks the
 * manager's row and then the contact's (the order every lead call keeps), checks the topic, the status, the hold
 * and the card, and only when all pass appends the lead event, sets the contact's status and lets it go, credits
 * a report (application with the rate in force), lists the number for a do-not-call status, schedules a callback
 * for a status that asks for one, and claims the next contact of the topic through the tiers of tiers.ts (one
 * COALESCE: a tier runs only when the one before found nothing) — unless the manager is on a break: then the press
 * is recorded and nothing is claimed or kept (decision 038).
 * The topic's bases and re-work statuses are read in the statement itself, so a change of the topic on any
 * instance applies to the next press. It answers what the checks found, so the caller raises the right error
 * (nothing was written then), and the next lead's attempt (and for the panel, leadViewColumns) in the same round trip.
 */
export function turnStatement(input: TurnStatementInput): SQL {
  return sql`with ${turnInputs(input)}, ${turnRest(input.panelView ?? false)}`;
}

/**
 * The press's own values, the one part of its statement that changes from press to press: the `i` row, the
 * presser's `u` row and the pressed status's `s` row. The rest (`turnRest`) reads them, so its text is the same at
 * every press and is rendered once: rendering the whole 59 KB statement took 2.6 ms of the server's CPU a press.
 */
function turnInputs(input: TurnStatementInput): SQL {
  return sql`i as materialized (select ${input.contactId}::bigint as contact_id, ${input.clientInfo}::text as client_info,
      ${input.withPassport}::boolean as with_passport, ${input.callbackAt ? input.callbackAt.toISOString() : null}::timestamptz as callback_at,
      ${input.callbackNote ?? ""}::text as callback_note, ${input.reportConfirmed ?? true}::boolean as report_confirmed,
      ${input.holdMinutes}::int as hold_minutes),
    u as materialized (${presserRow(input.presser)}),
    s as materialized (
      select id, text, is_report_status, is_technical, is_do_not_call, asks_callback from statuses
      ${pressedStatusWhere(input.status)})`;
}

const turnRest = (panelView: boolean) => (panelView ? TURN_REST_FOR_PANEL() : TURN_REST_FOR_API());
const TURN_REST_FOR_PANEL = renderedOnce(() => turnRestStatement(true));
const TURN_REST_FOR_API = renderedOnce(() => turnRestStatement(false));

/** The turn after its inputs (`turnInputs`): every value read from the `i`, `u` and `s` rows. */
function turnRestStatement(panelView: boolean): SQL {
  // The user and topic are read from the `u` row, a session's or the API's alike (as parameters at each use they
  // put the statement past the parameters db/client.ts prepares: decision 082); the press's values from `i`.
  const userId = sql`(select id from u)`;
  const filterId = sql`(select filter_id from u)`;
  const contactId = sql`(select contact_id from i)`;
  const clientInfo = sql`(select client_info from i)`;
  const savedNow = sql`case when c.id = ${contactId} and ${clientInfo} <> '' then ${clientInfo} else c.client_info end`;
  const withPassport = sql`(select with_passport from i)`;
  const callbackAt = sql`(select callback_at from i)`;
  const reportConfirmed = sql`(select report_confirmed from i)`;
  const holdMinutes = sql`(select hold_minutes from i)`;
  // The topic's calling window, read in the statement like its bases (the `f` row).
  const hours = hoursOfStatementRow("f");
  // A press's event data (the `ok` row, the contact `k` as it was read, the lead event `ev`): the client's card.
  const pressEventData = sql`jsonb_build_object(
    'eventId', ev.id, 'pressedAt', now(), 'user', jsonb_build_object('id', ${userId}, 'login', (select login from u)),
    'filterId', ${filterId}, 'status', jsonb_build_object('id', ok.status_id, 'text', ok.text, 'isReport', ok.is_report_status,
      'isDoNotCall', ok.is_do_not_call),
    'client', ${clientJson("k")},
    'clientInfo', ${clientInfo}, 'withPassport', ${withPassport}, 'attempt', (select attempt from rule),
    'callbackAt', ${callbackAt}) as data`;
  const CONTACT_COLUMNS_OF_CONTACTS = sql.raw(
    "contacts.id, contacts.database_id, contacts.name, contacts.phone, contacts.city, contacts.address, contacts.additional_info1, contacts.additional_info2, contacts.additional_info3, contacts.additional_info4",
  );
  return sql`
    brk as materialized (select ${onBreak(userId)} as paused),
    f as materialized (
      select f.is_active and fm.user_id is not null as open, f.calls_from, f.calls_until, f.call_days, f.time_zone, f.weekend_from, f.weekend_until, f.days_off, f.retry_counted_by
      from filters f left join filter_managers fm on fm.filter_id = f.id and fm.user_id = ${userId}
      where f.id = ${filterId}),
    c as materialized (
      select id, database_id, held_by, phone, phone_key, tz, consent_at, client_info from contacts
      where id = ${contactId} and exists (select 1 from u) for update),
    ok as materialized (
      select c.id, c.database_id, c.phone, c.phone_key, c.tz, c.consent_at, c.client_info, s.id as status_id, s.text, s.is_report_status,
        s.is_technical, s.is_do_not_call, s.asks_callback
      from c, s, f
      where f.open and c.held_by = ${userId} and (not s.is_report_status or (${clientInfo} <> '' and ${reportConfirmed}))
        and (not s.asks_callback or ${callbackAt} is not null)),
    rule as materialized (
      -- The pressed status's retry rule in this topic (decision 057): which attempt this press is (the statement does
      -- not see its own event, hence + 1 for presses; a call of this attempt is in the log already), and whether it
      -- is the last one, which gives the contact the rule's final status.
      select r.max_attempts, r.final_status_id, st.text as final_text, a.attempt, a.attempt >= r.max_attempts as last
      from ok
      join filter_retry_rules r on r.filter_id = ${filterId} and r.status_id = ok.status_id
      join statuses st on st.id = r.final_status_id
      cross join lateral (select ${attemptsSoFar(sql`ok.id`, sql`(select retry_counted_by from f)`)}
        + case when (select retry_counted_by from f) = 'calls' then 0 else 1 end as attempt) a),
    ev as (
      insert into lead_events (contact_id, database_id, user_id, filter_id, status_id, status_text, is_report, is_technical, with_passport, client_info,
        attempt, attempts_max, final_status_text)
      select id, database_id, ${userId}, ${filterId}, status_id, text, is_report_status, is_technical, ${withPassport}, ${clientInfo},
        (select attempt from rule), (select max_attempts from rule), (select final_text from rule where last) from ok
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
    dnc as (
      -- A do-not-call status: the contact's number goes on the list, with this manager as the one who added it.
      insert into do_not_call (phone_key, phone, added_by, added_by_login)
      select ok.phone_key, ok.phone, ${userId}, (select login from u) from ok
      where ok.is_do_not_call and ok.phone_key <> ''
      on conflict (phone_key) do nothing
      returning id),
    hook as (
      -- Webhooks (issue 44): the press's events are queued in its own statement, for the webhooks that want them
      -- (none: one probe of the webhooks table). Their ids follow the lead event's, so a retry keeps them.
      ${enqueueFrom(
        sql`
        select e.kind, e.data, 'msg_' || replace(e.kind, '.', '_') || '_' || ev.id as mid, ok.id as client, e.n
        from ok cross join ev join contacts k on k.id = ok.id
        cross join lateral (select ${pressEventData}) p
        cross join lateral (values
          (1, 'status.pressed', true, p.data),
          (2, 'report.sent', ok.is_report_status, p.data || jsonb_build_object('applicationId', (select id from app),
            'amountCents', (select amount from amt), 'applicationText', ${clientInfo})),
          (3, 'client.final_status', exists (select 1 from rule where last),
            p.data || jsonb_build_object('finalStatus', (select jsonb_build_object('id', final_status_id, 'text', final_text) from rule where last))),
          (4, 'client.do_not_call', ok.is_do_not_call and ok.phone_key <> '', p.data || jsonb_build_object('phone', ok.phone, 'source', 'status'))
        ) e(n, kind, wanted, data)
        where e.wanted and exists (select 1 from webhooks where enabled)`,
        { newIds: true },
      )}),
    fd as materialized (select array(select database_id from filter_databases where filter_id = ${filterId} order by 1) as ids),
    fs as materialized (select ${reworkStatusIds(filterId)} as ids),
    later as (
      -- A status that asks for a callback time: the contact belongs to this manager until then (decision 035).
      insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at, note, lead_event_id)
      select ok.id, ok.database_id, ${userId}, ${filterId}, ok.text, ${callbackAt}, (select callback_note from i), ev.id
      from ok cross join ev where ok.asks_callback
      returning due_at),
    ${claimCtes(
      {
        userId,
        filterId,
        bases: sql`(select ids from fd)::int[]`,
        reworkStatuses: sql`(select ids from fs)::int[]`,
        hours,
        graceMinutes: GRACE_FROM_SETTINGS,
        exceptContact: contactId,
        // Not the number this very press puts on the do-not-call list (the statement does not see its own insert).
        listedNow: sql`(select phone_key from ok where ok.is_do_not_call)`,
      },
      holdMinutes,
      selectList(CONTACT_COLUMNS),
      sql`exists (select 1 from ok) and not (select paused from brk)`,
    )},
    keep as materialized (
      -- Nothing else to claim, and the contact's new status is one the topic works again: the original order
      -- (status, release, then the claim) would hand this very contact straight back, so it stays held.
      select ok.id from ok
      where not exists (select 1 from claim) and not ok.asks_callback and not ok.is_do_not_call and not (select paused from brk)
        and ok.database_id = any((select ids from fd)::int[]) and ok.status_id = any((select ids from fs)::int[])
        and ${clientInHours(sql`ok.tz`, hours)} and ${underContactLimits(sql`ok.id`, sql`ok.tz`, filterId)}
        and ${consentAllows(sql`ok.consent_at`, filterId)}),
    upd as (
      update contacts set status_id = coalesce((select final_status_id from rule where last), ok.status_id), status_at = now(),
        last_user_id = ${userId},
        client_info = case when ${clientInfo} <> '' then ${clientInfo} else ok.client_info end,
        held_by = case when exists (select 1 from keep) then ${userId} end,
        held_until = case when exists (select 1 from keep) then now() + make_interval(mins => ${holdMinutes}) end,
        held_since = case when exists (select 1 from keep) then now() end
      from ok where contacts.id = ok.id
      returning ${CONTACT_COLUMNS_OF_CONTACTS}, contacts.held_by)
    select ${selectList(TURN_COLUMNS)},
      next.*, shown.*
    from (select 1) one left join (
      select * from claim
      union all
      select id, database_id, name, phone, city, address, additional_info1, additional_info2, additional_info3, additional_info4
      from upd where held_by is not null) next on true
    left join lateral (
      -- Read from the statement's snapshot, which has neither its own writes nor the claim's: the hold starts now; the
      -- pressed contact kept (no other to claim) has this press as history, and a re-work status, which no rule governs.
      -- The card the client saved (issue 41) is the one this press saves for him when he is kept.
      select ${
        panelView
          ? selectList(leadViewColumns(sql`now()`, sql`c.id = ${contactId}`, savedNow))
          : selectList({ ...attemptColumns(sql`now()`), ...cardColumns(savedNow) })
      }
      ${leadInTopic(sql`next.id`, filterId, sql`c.id = ${contactId}`)}) shown on true`;
}

/**
 * The statement listed only the pressed contact's own key, so the lead it claimed may carry one of the numbers
 * listed after it (another base's contact with the second number of "050…, 067…"): that lead is let go and the
 * next one claimed instead, so a listed number is never handed out, even in the press that lists it.
 */
async function unlessJustListed(db: Db, userId: number, filterId: number, holdMinutes: number, lead: Lead): Promise<Lead | null> {
  const released = await selectRows(
    db,
    { id: sql<number>`id` },
    (list) => sql`update contacts set held_by = null, held_until = null
        where id = ${lead.id} and held_by = ${userId} and not ${mayBeCalled("contacts")} returning ${list}`,
  );
  if (released.length === 0) return lead;
  return claimNext(db, userId, holdMinutes, await loadWorkSet(db, filterId));
}

/** What the turn was given besides its presser (recordStatusSchema's fields, parsed). */
type TurnInput = Omit<z.output<typeof recordStatusSchema>, "userId" | "filterId">;

/** Options of a press: the API's, or the lead panel's (`panelView`, `reportConfirmed`). */
interface TurnOptions {
  phoneRegion: string;
  /** The lead panel's press: LeadViewFacts with the next lead (`view`). */
  panelView?: boolean;
  /** The lead panel's press of a report status was confirmed; false refuses it with reportNotConfirmed. */
  reportConfirmed?: boolean;
}

/**
 * A status press (DESIGN §4): checks the manager holds the contact, appends the lead event, sets the contact's
 * status and lets it go; for a report status stores the application and credits the manager; then claims and
 * returns the next lead, with its attempt under a retry rule (SPEC's answer of PUT /status/update-and-get-lead)
 * and what the lead panel shows of it. All of it is `turnStatement`: one statement, so one round trip and atomic,
 * but for one case: a do-not-call status on a phone field that holds several numbers ("050…, 067…"). The statement
 * lists the pressed contact's own key; the field's other numbers (libphonenumber reads them, not SQL) are listed
 * after it, in a transaction of their own with the swap of a next lead that carries one of them (unlessJustListed).
 * A process that dies between the two leaves the status recorded and the first number listed, the others not.
 */
export async function recordStatus(db: Db, actor: Actor, holdMinutes: number, rawInput: unknown, options: TurnOptions): Promise<RecordStatusResult> {
  const { userId, filterId, ...input } = parseInput(recordStatusSchema, rawInput);
  requireSelfOrAdmin(actor, userId);
  const turn = await runTurn(db, { userId, filterId }, holdMinutes, input, options);
  if (!turn) throw notFound("Пользователь не найден", "user_not_found");
  return turn.result;
}

/**
 * The lead panel's press (decision 069): recordStatus for the user of a session, who is checked in the same
 * statement (one query a press). Null when the session is not live: nothing was recorded, the page logs in again.
 */
export async function pressStatus(
  db: Db,
  session: string,
  holdMinutes: number,
  rawInput: unknown,
  options: TurnOptions,
): Promise<{ result: RecordStatusResult; actor: Actor } | null> {
  return runTurn(db, { session }, holdMinutes, parseInput(sessionPressSchema, rawInput), options);
}

/** The turn statement and what follows it; null when the presser was not found (no user, no live session). */
async function runTurn(
  db: Db,
  presser: Presser,
  holdMinutes: number,
  input: TurnInput,
  options: TurnOptions,
): Promise<{ result: RecordStatusResult; actor: Actor } | null> {
  // eslint-disable-next-line no-restricted-syntax -- TurnRow is made of the statement's declarations (TURN_COLUMNS, CONTACT_COLUMNS, leadViewColumns) but `next.*, shown.*` are not listed one by one yet: the press statement is being reworked (issue 40 item 5)
  const [row] = await queryRows<TurnRow>(
    db,
    turnStatement({
      presser,
      contactId: input.contactId,
      status: input.status,
      clientInfo: input.clientInfo,
      withPassport: input.passport !== "",
      holdMinutes,
      callbackAt: input.callbackAt ?? null,
      callbackNote: input.callbackNote,
      panelView: options.panelView,
      reportConfirmed: options.reportConfirmed,
    }),
  );
  if (row.user_id == null) return null;
  const userId = Number(row.user_id);
  const actor: Actor = { id: userId, login: row.user_login ?? "", isAdmin: Boolean(row.user_admin) };
  // The checks in the order the press has always made them (the first failing one answers).
  if (!row.filter_found) throw filterNotFound();
  if (!row.filter_open) throw filterUnavailable();
  if (row.status_id == null) throw pressedStatusNotFound();
  if (!row.contact_found) throw notFound("Клиент не найден", "contact_not_found");
  if (row.held_by !== userId) throw leadNotHeld();
  if (row.status_report && !input.clientInfo) throw badRequest(CARD_EMPTY, "client_card_empty");
  if (row.status_report && options.reportConfirmed === false) throw reportNotConfirmed();
  if (row.status_callback && !input.callbackAt) throw badRequest(CALLBACK_TIME_MISSING, "callback_time_missing");
  if (row.event_id == null) throw new Error("status press: the checks passed but nothing was recorded");
  // The topic the statement worked in (a session's: the user's own; it was found, so it is not null).
  const filterId = Number(row.user_filter_id);
  let next: { lead: Lead; view: LeadViewFacts | null; cardFacts: CardFacts | null } | null = null;
  if (row.id != null) {
    const attempt = attemptOf(row);
    const lead = presentLead(row as ContactRow);
    next = { lead: attempt ? { ...lead, attempt } : lead, view: options.panelView ? (row as LeadViewFacts) : null, cardFacts: row as CardFacts };
  }
  // The other numbers of a phone field that holds several ("050…, 067…"); the first key is already listed. Listed
  // and the next lead swapped together: a listed number is never handed out, even in the press that lists it.
  const dncPhone = row.dnc_phone;
  let callbackHanded = Boolean(row.callback_handed);
  if (dncPhone) {
    next = await db.transaction(async (tx) => {
      const listed = await listContactPhones(tx, actor, dncPhone, options.phoneRegion);
      if (listed === 0 || !next) return next;
      const other = await unlessJustListed(tx, userId, filterId, holdMinutes, next.lead);
      if (other === next.lead) return next;
      // Another lead, claimed after the statement (with its attempt; the panel reads its view apart): it may be a
      // callback, which claimNext does not say, so the menu's count is read again.
      callbackHanded = true;
      return other ? { lead: other, view: null, cardFacts: null } : null;
    });
  }
  const result: RecordStatusResult = {
    lead: next?.lead ?? null,
    view: next?.view ?? null,
    cardFacts: next?.cardFacts ?? null,
    filterId,
    applicationId: row.application_id == null ? null : Number(row.application_id),
    status: {
      id: row.status_id,
      text: row.status_text ?? "",
      isReportStatus: Boolean(row.status_report),
      isDoNotCall: Boolean(row.status_dnc),
      asksCallback: Boolean(row.status_callback),
    },
    callback: row.callback_at == null ? null : { dueAt: new Date(row.callback_at).toISOString() },
    onBreak: Boolean(row.on_break),
    callbackHanded,
  };
  return { result, actor };
}

/** What the manager is told after a press, as a toast. */
export interface PressMessage {
  type: "success" | "error";
  message: string;
}

/**
 * What a recorded press tells the manager: a report's «Данные отправлены» (its application is stored, and sent to
 * APPLICATION_FORWARD_URL by that URL's webhook, from the queue the press wrote it to: the press never waits for
 * the receiver, issue 44); else the callback it scheduled; else nothing.
 */
export function pressOutcomeMessage(result: Pick<RecordStatusResult, "applicationId" | "callback">): PressMessage | null {
  if (result.applicationId) return { type: "success", message: FORWARD_OK };
  return result.callback ? { type: "success", message: `Перезвон запланирован на ${formatKyiv(result.callback.dueAt)}` } : null;
}
