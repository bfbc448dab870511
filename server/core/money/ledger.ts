import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { users } from "../../../db/schema";
import { notFound } from "../errors";

/** A transaction (or the db) as core money code uses it. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

export const workerNotFound = () => notFound("Сотрудник не найден", "worker_not_found");

/**
 * Locks one worker's row for the rest of the transaction. Every write to a balance (credit, adjustment,
 * payout, cancelled payout) takes this lock first, so they apply one after another and a payout settles
 * exactly what the balance it read contained.
 */
export async function lockWorker(tx: Tx, userId: number) {
  const [user] = await tx.select().from(users).where(eq(users.id, userId)).for("update");
  if (!user) throw workerNotFound();
  return user;
}
