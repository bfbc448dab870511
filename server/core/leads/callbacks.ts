import { and, count, eq, isNull, not, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { type CallbackCloseReason, callbacks, filters, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { onBreak, requireNotOnBreak } from "../breaks/breaks";
import { mayBeCalled } from "../dnc/dnc";
import { clientInHours, hoursOfTopic, nextWindowLocal, waitsForHoursNote } from "../filters/calling-hours";
import { badRequest, conflict, forbidden, notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import { holdOutOfTurn, lockUser } from "./allocation";
import { callbackAtSchema, callbackNoteSchema } from "./callback-time";
import { userNameSql } from "../users/present";

/**
 * Scheduled callbacks outside the turn (issue 18, decision 035): the manager's list (Мои перезвоны) and taking one
 * now, the admin's list and reassigning. Scheduling happens in the status press and handing out in the claim's
 * tiers (server/core/leads/tiers.ts); this module only reads and moves pending callbacks.
 */

export interface CallbackView {
  id: number;
  contactId: number;
  name: string;
  phone: string;
  statusText: string;
  dueAt: string;
  /** What the manager wrote for it when he scheduled it (issue 41 §7); "" when nothing. */
  note: string;
  /** Its time has come. */
  due: boolean;
  /** Due for longer than the grace time: any manager of the topic may get it now. */
  overdue: boolean;
  user: { id: number; name: string } | null;
  filter: { id: number; name: string } | null;
  /**
   * Due, and outside its topic's calling hours in the client's local time: it waits (the claim hands it out when
   * they begin), and this says why («ждёт рабочего времени клиента (с 09:00 по его времени)»).
   */
  waitsForHours: string | null;
}

/** Due, and outside its topic's hours on the client's clock: it waits (the claim hands it out when they begin). */
const waitsForHours = sql`(cb.due_at <= now() and f.id is not null and not ${clientInHours(sql`c.tz`, hoursOfTopic("f"))})`;

/** What a pending callback's row reads: its contact, manager and topic (pendingRows). */
const CALLBACK_COLUMNS = {
  id: sql<number>`cb.id`,
  contact_id: sql<number | string>`cb.contact_id`,
  name: sql<string>`c.name`,
  phone: sql<string>`c.phone`,
  status_text: sql<string>`cb.status_text`,
  due_at: sql<Date | string>`cb.due_at`,
  note: sql<string>`cb.note`,
  due: sql<boolean>`cb.due_at <= now()`,
  overdue: sql<boolean>`cb.due_at < now() - make_interval(mins => coalesce((select callback_grace_minutes from settings where id = 1), 15))`,
  user_id: sql<number | null>`cb.user_id`,
  user_name: sql<string | null>`coalesce(nullif(u.display_name, ''), u.login)`,
  filter_id: sql<number | null>`cb.filter_id`,
  filter_name: sql<string | null>`f.name`,
  waits_for_hours: sql<boolean>`${waitsForHours}`,
  // When his window opens (read only for a callback that waits: the CASE leaves the others alone).
  opens_local: sql<string | null>`case when ${waitsForHours} then ${nextWindowLocal(sql`coalesce(c.tz, f.time_zone)`, hoursOfTopic("f"))} end`,
};
type CallbackRow = RowOf<typeof CALLBACK_COLUMNS>;

function present(row: CallbackRow): CallbackView {
  return {
    id: row.id,
    contactId: Number(row.contact_id),
    name: row.name,
    phone: row.phone,
    statusText: row.status_text,
    dueAt: new Date(row.due_at).toISOString(),
    note: row.note,
    due: row.due,
    overdue: row.overdue,
    user: row.user_id == null ? null : { id: row.user_id, name: row.user_name ?? "" },
    filter: row.filter_id == null ? null : { id: row.filter_id, name: row.filter_name ?? "" },
    waitsForHours: row.waits_for_hours ? waitsForHoursNote(row.opens_local) : null,
  };
}

const pendingRows = (db: Db, where: ReturnType<typeof sql>) =>
  selectRows(
    db,
    CALLBACK_COLUMNS,
    (list) => sql`
  select ${list}
  from callbacks cb
  join contacts c on c.id = cb.contact_id
  left join users u on u.id = cb.user_id
  left join filters f on f.id = cb.filter_id
  where cb.handed_at is null and ${where}
  order by cb.due_at, cb.id
  limit 1000`,
  );

/** Мои перезвоны: the manager's pending callbacks, earliest first (the due ones are "overdue" in the page's words). */
export async function listMyCallbacks(db: Db, actor: Actor): Promise<CallbackView[]> {
  return (await pendingRows(db, sql`cb.user_id = ${actor.id}`)).map(present);
}

export const callbackListSchema = z.object({
  userId: idSchema.optional(),
  filterId: idSchema.optional(),
});

/** Every pending callback (admin), by manager and topic when asked. */
export async function listAllCallbacks(db: Db, actor: Actor, rawInput: unknown = {}): Promise<CallbackView[]> {
  requireAdmin(actor);
  const input = parseInput(callbackListSchema, rawInput);
  const byUser = input.userId ? sql`cb.user_id = ${input.userId}` : sql`true`;
  const byFilter = input.filterId ? sql`cb.filter_id = ${input.filterId}` : sql`true`;
  return (await pendingRows(db, sql`${byUser} and ${byFilter}`)).map(present);
}

/** The menu's count: the manager's callbacks whose time has come, and all his pending ones. */
export async function callbackCounts(db: Db, userId: number): Promise<{ due: number; pending: number }> {
  const [row] = await db
    .select({ due: sql<number>`count(*) filter (where ${callbacks.dueAt} <= now())`.mapWith(Number), pending: count() })
    .from(callbacks)
    .where(and(isNull(callbacks.handedAt), eq(callbacks.userId, userId)));
  return { due: row?.due ?? 0, pending: row?.pending ?? 0 };
}

export const callbackNotFound = () => notFound("Перезвон не найден", "callback_not_found");

export const reassignCallbackSchema = z.object({
  userId: idSchema,
  dueAt: callbackAtSchema.optional(),
});

/** The admin gives a pending callback to another manager (and may move its time). */
export async function reassignCallback(db: Db, actor: Actor, rawId: unknown, rawInput: unknown): Promise<CallbackView> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const input = parseInput(reassignCallbackSchema, rawInput);
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, input.userId));
  if (!user) throw notFound("Пользователь не найден", "user_not_found");
  const [row] = await db
    .update(callbacks)
    .set({ userId: input.userId, ...(input.dueAt ? { dueAt: input.dueAt } : {}) })
    .where(and(eq(callbacks.id, id), isNull(callbacks.handedAt)))
    .returning({ id: callbacks.id });
  if (!row) throw callbackNotFound();
  const [view] = await pendingRows(db, sql`cb.id = ${id}`);
  return present(view);
}

export const callbackNoteInputSchema = z.object({ note: callbackNoteSchema });

export const CALLBACK_NOT_YOURS = "Можно работать только со своими перезвонами";

/**
 * The note of a pending callback, written again (issue 41 §7): by its manager from Мои перезвоны, or by an admin
 * for anyone's. Another manager's callback is refused (403); one handed out, closed or gone is not found (404).
 * An empty note clears it. The row is locked, so a note never lands on a callback the turn is handing out.
 */
export async function editCallbackNote(db: Db, actor: Actor, rawId: unknown, rawInput: unknown): Promise<CallbackView> {
  const id = parseInput(idSchema, rawId);
  await db.transaction(async (tx) => {
    const [cb] = await tx
      .select({ userId: callbacks.userId })
      .from(callbacks)
      .where(and(eq(callbacks.id, id), isNull(callbacks.handedAt)))
      .for("update");
    if (!cb) throw callbackNotFound();
    if (!actor.isAdmin && cb.userId !== actor.id) throw forbidden(CALLBACK_NOT_YOURS);
    // Whose it is first, then what was sent (403 before 400, as a role).
    const input = parseInput(callbackNoteInputSchema, rawInput);
    await tx.update(callbacks).set({ note: input.note }).where(eq(callbacks.id, id));
  });
  const [view] = await pendingRows(db, sql`cb.id = ${id}`);
  if (!view) throw callbackNotFound();
  return present(view);
}

export const CALLBACK_NOT_IN_TOPIC = "Этот клиент не входит в ваши тематики";
export const CALLBACK_CONTACT_BUSY = "Этим клиентом сейчас занимается другой менеджер";
export const callbackOutsideHours = (opensLocal: string | null) => `Сейчас у клиента нерабочее время: перезвон ${waitsForHoursNote(opensLocal)}`;
export const CALLBACK_DO_NOT_CALL = "Номер клиента в списке «Не звонить»: перезвон закрыт";

/**
 * "Позвонить сейчас" from Мои перезвоны: the manager takes his callback before its time. The lead he held goes
 * back to the pool; the callback's contact becomes his lead, in his current topic when it holds the contact's
 * base, otherwise in the callback's own topic (when it is still open to him). One transaction, the manager's row
 * locked first like every lead call.
 *
 * A callback whose number went on the do-not-call list after it was scheduled is never handed out (the claim's
 * tiers skip it), so taking it is refused (409) and it is closed with that reason: it leaves Мои перезвоны, the
 * admin's list and the menu's count, and the lead he holds stays his (issue 29).
 */
export async function takeCallback(db: Db, actor: Actor, holdMinutes: number, rawId: unknown): Promise<{ contactId: number; filterId: number }> {
  const id = parseInput(idSchema, rawId);
  const taken = await db.transaction(async (tx) => {
    await lockUser(tx, actor.id);
    await requireNotOnBreak(tx, actor.id);
    const [cb] = await selectRows(
      tx,
      {
        id: sql<number>`cb.id`,
        contact_id: sql<string | number>`cb.contact_id`,
        database_id: sql<number>`cb.database_id`,
        user_id: sql<number | null>`cb.user_id`,
        filter_id: sql<number | null>`cb.filter_id`,
        held_by: sql<number | null>`c.held_by`,
        // A hold is live until its time, or for as long as its holder is on a break (decision 038).
        held_live: sql<boolean>`(c.held_until > now() or ${onBreak(sql`c.held_by`)})`,
        may_be_called: sql<boolean>`${mayBeCalled("c")}`,
      },
      (list) => sql`select ${list}
        from callbacks cb join contacts c on c.id = cb.contact_id
        where cb.id = ${id} and cb.handed_at is null for update of cb, c`,
    );
    if (!cb) throw callbackNotFound();
    if (cb.user_id !== actor.id) throw forbidden(CALLBACK_NOT_YOURS);
    if (!cb.may_be_called) {
      // Closed in this transaction, refused after it commits (a throw here would undo the closing).
      await tx.execute(sql`update callbacks set handed_at = now(), closed_reason = ${"do_not_call" satisfies CallbackCloseReason} where id = ${id}`);
      return null;
    }
    if (cb.held_by != null && cb.held_by !== actor.id && cb.held_live) {
      throw conflict(CALLBACK_CONTACT_BUSY, "callback_contact_busy");
    }
    // The topic to work it in: the current one if it has the base, else the callback's own, if open to him.
    const clientTz = sql`(select tz from contacts where id = ${cb.contact_id})`;
    const [topic] = await selectRows(
      tx,
      {
        filter_id: sql<number>`f.id`,
        in_hours: sql<boolean>`${clientInHours(clientTz, hoursOfTopic("f"))}`,
        opens_local: nextWindowLocal(sql`coalesce(${clientTz}, f.time_zone)`, hoursOfTopic("f")),
      },
      (list) => sql`select ${list}
        from filters f
        join filter_managers fm on fm.filter_id = f.id and fm.user_id = ${actor.id}
        join filter_databases fd on fd.filter_id = f.id and fd.database_id = ${cb.database_id}
        where f.is_active and f.id in ((select getting_filter from users where id = ${actor.id}), ${cb.filter_id ?? 0})
        order by (f.id = (select getting_filter from users where id = ${actor.id})) desc limit 1`,
    );
    if (!topic) throw badRequest(CALLBACK_NOT_IN_TOPIC, "callback_not_in_topic");
    // The proxy would refuse the call (decision 050): say so here, and the callback keeps waiting.
    if (!topic.in_hours) throw conflict(callbackOutsideHours(topic.opens_local), "callback_outside_hours");
    const contactId = Number(cb.contact_id);
    await holdOutOfTurn(tx, actor.id, contactId, topic.filter_id, holdMinutes);
    await tx.execute(sql`update callbacks set handed_at = now(), handed_to = ${actor.id} where id = ${id}`);
    return { contactId, filterId: topic.filter_id };
  });
  if (!taken) throw conflict(CALLBACK_DO_NOT_CALL, "callback_do_not_call");
  return taken;
}

export interface FallenDue {
  userId: number;
  id: number;
  name: string;
  phone: string;
  dueAt: string;
}

/**
 * The scheduler's question: which of these users' callbacks fell due after `since` (the database's clock, as the
 * previous answer gave it; null: the first look, nothing is "new"), and the database's time now for the next one.
 */
export async function callbacksFallenDue(db: Db, userIds: number[], since: string | null): Promise<{ now: string; due: FallenDue[] }> {
  const ids =
    userIds.length > 0
      ? sql.join(
          userIds.map((u) => sql`${u}`),
          sql`, `,
        )
      : sql`null`;
  const rows = await selectRows(
    db,
    {
      now: sql<Date | string>`t.now`,
      user_id: sql<number | null>`d.user_id`,
      id: sql<number | null>`d.id`,
      name: sql<string>`d.name`,
      phone: sql<string>`d.phone`,
      due_at: sql<Date | string | null>`d.due_at`,
    },
    (list) => sql`with t as materialized (select now() as now)
      select ${list} from t left join lateral (
        select cb.user_id, cb.id, c.name, c.phone, cb.due_at from callbacks cb join contacts c on c.id = cb.contact_id
        where ${since !== null} and cb.handed_at is null and cb.due_at > ${since ?? "-infinity"}::timestamptz and cb.due_at <= t.now
          and cb.user_id in (${ids})
        order by cb.due_at) d on true`,
  );
  const now = new Date(rows[0].now).toISOString();
  return {
    now,
    due: rows
      .filter((r) => r.id != null && r.user_id != null)
      .map((r) => ({ userId: r.user_id!, id: r.id!, name: r.name, phone: r.phone, dueAt: new Date(r.due_at!).toISOString() })),
  };
}

/** The admin's choices on the callbacks page: the managers to give a callback to, and the topics to filter by. */
export async function listCallbackChoices(db: Db, actor: Actor) {
  requireAdmin(actor);
  const [managers, topics] = await Promise.all([
    db
      .select({ id: users.id, name: userNameSql })
      .from(users)
      .where(not(users.isAdmin))
      .orderBy(sql`2`, sql`1`),
    db.select({ id: filters.id, name: filters.name }).from(filters).orderBy(filters.name, filters.id),
  ]);
  return { managers, topics };
}
