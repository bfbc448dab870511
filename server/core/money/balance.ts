import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { balanceAdjustments, users } from "../../../db/schema";
import { type Actor, requireAdmin, requireSelfOrAdmin } from "../actor";
import { idSchema, parseInput } from "../validation";
import { adjustSchema, type AdjustmentKind } from "../../../common/schemas/money";
import { checkBalanceRange, toDollars } from "./amount";
import { lockWorker, workerNotFound } from "./ledger";

// The input's shape (SPEC §5's «Введите число в поле») is shared with the page form (common/schemas/money.ts).
export { adjustmentKinds, adjustSchema, ENTER_NUMBER, type AdjustmentKind } from "../../../common/schemas/money";

/**
 * SPEC §3 Balance response, for the header and its popup. Reading it clears `notify`, so one rise shows one
 * popup. A manager reads only his own.
 */
export async function readBalance(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  requireSelfOrAdmin(actor, id);
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ balanceCents: users.balanceCents, notify: users.notify, lastNotifyCents: users.lastNotifyCents })
      .from(users)
      .where(eq(users.id, id))
      .for("update");
    if (!user) throw workerNotFound();
    // Only the user himself consumes his popup; an admin looking at his balance leaves it for him.
    if (user.notify && actor.id === id) await tx.update(users).set({ notify: false }).where(eq(users.id, id));
    return { balance: toDollars(user.balanceCents), notify: user.notify, lastNotify: toDollars(user.lastNotifyCents) };
  });
}

/**
 * An admin's change to a balance (SPEC §7 add / rem / def): add and subtract move it by the amount, reset
 * brings it to zero and records what it removed. An addition raises the worker's popup like a credit does.
 */
export async function adjustBalance(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { userId, kind, cents } = parseInput(adjustSchema, input);
  return db.transaction(async (tx) => {
    const worker = await lockWorker(tx, userId);
    const removed = kind === "def" ? worker.balanceCents : 0;
    const next = kind === "add" ? worker.balanceCents + cents : kind === "rem" ? worker.balanceCents - cents : 0;
    checkBalanceRange(next);
    await tx.insert(balanceAdjustments).values({
      userId,
      kind,
      amountCents: kind === "def" ? removed : cents,
      byUserId: actor.id,
    });
    await tx
      .update(users)
      .set({
        balanceCents: next,
        updatedAt: new Date(),
        ...(kind === "add" ? { notify: true, lastNotifyCents: cents } : {}),
      })
      .where(eq(users.id, userId));
    return {
      success: true,
      message: kind === "def" ? "Баланс обнулен" : "Баланс обновлен",
      balance: toDollars(next),
    };
  });
}

/** What an adjustment did to the balance, in cents (a reset removed what was there). */
export const adjustmentEffect = (kind: AdjustmentKind, amountCents: number) => (kind === "add" ? amountCents : -amountCents);
