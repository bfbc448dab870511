import { eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { settings, users } from "../../../db/schema";

/** A transaction or the db itself: the credit runs inside the status press's transaction. */
type Tx = Pick<Db, "select" | "update">;

/**
 * Credits a manager for one report application at the rate in force (settings row 1: with or without passport)
 * and raises the congratulation popup (notify, lastNotify). Returns the amount in cents.
 * A zero rate credits nothing and raises no popup: the balance did not rise.
 */
export async function creditReport(tx: Tx, userId: number, withPassport: boolean): Promise<number> {
  const [rates] = await tx
    .select({ withPassport: settings.rateWithPassportCents, withoutPassport: settings.rateWithoutPassportCents })
    .from(settings)
    .where(eq(settings.id, 1));
  const amount = rates ? (withPassport ? rates.withPassport : rates.withoutPassport) : 0;
  if (amount <= 0) return 0;
  await tx
    .update(users)
    .set({
      balanceCents: sql`${users.balanceCents} + ${amount}`,
      notify: true,
      lastNotifyCents: amount,
      updatedAt: new Date(),
    })
    .where(eq(users.id, userId));
  return amount;
}
