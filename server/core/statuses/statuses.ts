import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { statuses, type Status } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { notFound } from "../errors";
import { createStatusSchema, updateStatusSchema } from "../../../common/schemas/statuses";
import { idSchema, parseInput } from "../validation";
import { withKeys } from "./keys";
import { sortStatuses } from "./order";

export { sortStatuses, statusGroup } from "./order";

/** SPEC §3/§9: what "Добавить статус" creates. */
export const NEW_STATUS_TEXT = "Новый статус";
export const DEFAULT_STATUS_COLOR = "#f59e0b";

// The inputs' shapes are shared with the page form (common/schemas/statuses.ts).
export { createStatusSchema, updateStatusSchema } from "../../../common/schemas/statuses";

export const statusNotFound = () => notFound("Статус не найден", "status_not_found");

export function presentStatus(status: Status) {
  return {
    id: status.id,
    text: status.text,
    buttonText: status.buttonText,
    color: status.color,
    isHidden: status.isHidden,
    description: status.description,
    order: status.order,
    isReportStatus: status.isReportStatus,
    isTechnical: status.isTechnical,
    isDoNotCall: status.isDoNotCall,
    asksCallback: status.asksCallback,
    hotkey: status.hotkey,
  };
}
export type StatusView = ReturnType<typeof presentStatus>;

/** A digit given to one status is taken from any other that had it: one status per key. */
async function releaseHotkey(tx: Pick<Db, "update">, digit: number, keptBy: number) {
  await tx
    .update(statuses)
    .set({ hotkey: null, updatedAt: new Date() })
    .where(and(eq(statuses.hotkey, digit), ne(statuses.id, keptBy)));
}

async function findStatus(db: Db, id: number) {
  const [row] = await db.select().from(statuses).where(eq(statuses.id, id));
  if (!row) throw statusNotFound();
  return row;
}

/** Every status, visible and hidden (admin: the /edit-statuses screen). */
export async function listStatuses(db: Db, actor: Actor) {
  requireAdmin(actor);
  const rows = await db.select().from(statuses).orderBy(asc(statuses.order), asc(statuses.id));
  return sortStatuses(rows).map(presentStatus);
}

/**
 * /edit-statuses (issue 41 §10, decision 085): the visible statuses in the lead panel's order, each with its
 * digit (keys.ts's withKeys), and the hidden ones, all in the one order (order.ts): the list reads as the row.
 */
export async function listStatusesInPanelOrder(db: Db, actor: Actor) {
  requireAdmin(actor);
  const rows = (await db.select().from(statuses)).map(presentStatus);
  return {
    visible: withKeys(rows.filter((status) => !status.isHidden)),
    hidden: sortStatuses(rows.filter((status) => status.isHidden)),
  };
}

/** The visible statuses: the lead panel's buttons (any logged-in user). */
export async function listVisibleStatuses(db: Db, _actor: Actor) {
  const rows = await db.select().from(statuses).where(eq(statuses.isHidden, false)).orderBy(asc(statuses.order), asc(statuses.id));
  return sortStatuses(rows).map(presentStatus);
}

/** A new status; order defaults to the count of all statuses (visible plus hidden). */
export async function createStatus(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const body = parseInput(createStatusSchema, input);
  return db.transaction(async (tx) => {
    const [{ value: total }] = await tx.select({ value: count() }).from(statuses);
    const [row] = await tx
      .insert(statuses)
      .values({
        text: body.text,
        buttonText: body.buttonText || body.text,
        color: body.color ?? DEFAULT_STATUS_COLOR,
        isHidden: body.isHidden ?? false,
        description: body.description ?? "",
        order: body.order ?? Number(total),
        isReportStatus: body.isReportStatus ?? false,
        isTechnical: body.isTechnical ?? false,
        isDoNotCall: body.isDoNotCall ?? false,
        asksCallback: body.asksCallback ?? false,
        hotkey: body.hotkey ?? null,
      })
      .returning();
    if (row.hotkey !== null) await releaseHotkey(tx, row.hotkey, row.id);
    return presentStatus(row);
  });
}

/** "Добавить статус": text Новый статус, colour #f59e0b, visible, order = count of all statuses. */
export async function createDefaultStatus(db: Db, actor: Actor) {
  return createStatus(db, actor, { text: NEW_STATUS_TEXT, color: DEFAULT_STATUS_COLOR, isHidden: false, description: "" });
}

export async function updateStatus(db: Db, actor: Actor, rawId: unknown, input: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const { id: _ignored, ...body } = parseInput(updateStatusSchema, input);
  const current = await findStatus(db, id);
  const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  // Issue 41 §11 (decision 081): an empty button text is the status's text, as a new status's is, so a status
  // renamed with its button text left empty keeps one name.
  if (body.buttonText === "") changes.buttonText = body.text ?? current.text;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(statuses)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(statuses.id, id))
      .returning();
    if (!row) throw statusNotFound();
    if (row.hotkey !== null) await releaseHotkey(tx, row.hotkey, row.id);
    return presentStatus(row);
  });
}

export async function deleteStatus(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db.delete(statuses).where(eq(statuses.id, id)).returning({ id: statuses.id });
  if (!row) throw statusNotFound();
  return { success: true, message: "Статус удалён" };
}

/**
 * Issue 41: a report or technical flag changes the default key order (keys.ts), so flipping one moved rows on the
 * panel and in the editor. The digits as they stand are written down first (a status keeps the key its managers
 * know); a status past the ninth digit has none to keep.
 */
async function keepKeys(tx: Pick<Db, "select" | "update">) {
  const visible = await tx.select().from(statuses).where(eq(statuses.isHidden, false));
  for (const status of withKeys(visible)) {
    if (status.key !== null && status.hotkey !== status.key) await tx.update(statuses).set({ hotkey: status.key }).where(eq(statuses.id, status.id));
  }
}

async function toggle(db: Db, actor: Actor, rawId: unknown, field: "isHidden" | "isTechnical" | "isReportStatus" | "isDoNotCall" | "asksCallback") {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  return db.transaction(async (tx) => {
    if (field === "isTechnical" || field === "isReportStatus") await keepKeys(tx);
    // One statement: two quick clicks flip twice, never lose one.
    const [row] = await tx
      .update(statuses)
      .set({ [field]: sql`not ${statuses[field]}`, updatedAt: new Date() })
      .where(eq(statuses.id, id))
      .returning();
    if (!row) throw statusNotFound();
    return presentStatus(row);
  });
}

/** Hides a visible status or shows a hidden one; answers the status with its new isHidden. */
export const toggleStatusVisibility = (db: Db, actor: Actor, rawId: unknown) => toggle(db, actor, rawId, "isHidden");
export const toggleStatusTechnical = (db: Db, actor: Actor, rawId: unknown) => toggle(db, actor, rawId, "isTechnical");
export const toggleStatusReport = (db: Db, actor: Actor, rawId: unknown) => toggle(db, actor, rawId, "isReportStatus");
/** Pressing a do-not-call status puts the contact's numbers on the list (issue 18). */
export const toggleStatusDoNotCall = (db: Db, actor: Actor, rawId: unknown) => toggle(db, actor, rawId, "isDoNotCall");

/** "Спрашивает время перезвона": pressing it on the lead panel schedules a callback (issue 18). */
export const toggleStatusCallback = (db: Db, actor: Actor, rawId: unknown) => toggle(db, actor, rawId, "asksCallback");
