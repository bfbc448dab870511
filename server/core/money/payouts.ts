import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { applications, balanceAdjustments, payments, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import { payoutSchema } from "../../../common/schemas/money";
import { checkBalanceRange, toDollars } from "./amount";
import { adjustmentEffect, type AdjustmentKind } from "./balance";
import { lockWorker, workerNotFound, type Tx } from "./ledger";

export { PAYOUT_ZERO, payoutSchema } from "../../../common/schemas/money";
export const PAYOUT_OVER_BALANCE = "Сумма выплаты не может быть больше баланса";
const payoutNotFound = () => notFound("Выплата не найдена", "payout_not_found");

export interface WorkerStat {
  id: number;
  login: string;
  withPassport: number;
  withoutPassport: number;
  /** Earned and not yet paid (the balance), in dollars. */
  totalEarned: number;
}

/**
 * SPEC §3 Worker payment stats: per worker, the report applications not yet covered by a payout (with and
 * without passport) and what he has earned and not been paid; the two counters are the sums over everyone.
 * Workers are the managers, and any admin who has money or unpaid reports.
 */
export async function paymentStats(db: Db, actor: Actor) {
  requireAdmin(actor);
  const rows = await selectRows(
    db,
    {
      id: sql<number>`u.id`,
      login: sql<string>`u.login`,
      balance_cents: sql<number>`u.balance_cents`,
      with_passport: sql<number>`(count(a.id) filter (where a.with_passport))::int`,
      without_passport: sql<number>`(count(a.id) filter (where not a.with_passport))::int`,
    },
    (list) => sql`select ${list}
        from ${users} u
        left join ${applications} a on a.user_id = u.id and a.payment_id is null
        group by u.id
        having not u.is_admin or u.balance_cents <> 0 or count(a.id) > 0
        order by u.login`,
  );
  const workerStats: WorkerStat[] = rows.map((r) => ({
    id: Number(r.id),
    login: r.login,
    withPassport: Number(r.with_passport),
    withoutPassport: Number(r.without_passport),
    totalEarned: toDollars(Number(r.balance_cents)),
  }));
  return {
    withPassport: workerStats.reduce((sum, w) => sum + w.withPassport, 0),
    withoutPassport: workerStats.reduce((sum, w) => sum + w.withoutPassport, 0),
    workerStats,
  };
}

/**
 * Pays a worker (SPEC §7 payments/process): records the payout at this moment, takes it off his balance and
 * marks everything on that balance (report applications and adjustments not yet settled) as covered by it.
 * A payout is more than zero and at most the balance.
 */
export async function processPayout(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { userId, amount: cents } = parseInput(payoutSchema, input);
  return db.transaction(async (tx) => {
    const worker = await lockWorker(tx, userId);
    if (cents > worker.balanceCents) throw badRequest(PAYOUT_OVER_BALANCE, "payout_over_balance");
    const [payment] = await tx
      .insert(payments)
      .values({ userId, amountCents: cents, processedAt: sql`date_trunc('milliseconds', clock_timestamp())` })
      .returning();
    await tx
      .update(applications)
      .set({ paymentId: payment.id, updatedAt: new Date() })
      .where(and(eq(applications.userId, userId), isNull(applications.paymentId)));
    await tx
      .update(balanceAdjustments)
      .set({ paymentId: payment.id })
      .where(and(eq(balanceAdjustments.userId, userId), isNull(balanceAdjustments.paymentId)));
    await tx
      .update(users)
      .set({ balanceCents: worker.balanceCents - cents, updatedAt: new Date() })
      .where(eq(users.id, userId));
    return {
      success: true,
      message: "Выплата проведена",
      payment: presentPayment(payment),
      balance: toDollars(worker.balanceCents - cents),
    };
  });
}

const presentPayment = (p: { id: number; processedAt: Date; amountCents: number }) => ({
  id: p.id,
  date: p.processedAt.toISOString(),
  amount: toDollars(p.amountCents),
});

async function requireWorker(db: Db, workerId: number) {
  const [worker] = await db.select({ id: users.id }).from(users).where(eq(users.id, workerId));
  if (!worker) throw workerNotFound();
}

/** SPEC §3 Payment history: a worker's payouts, newest first (date and time, amount). */
export async function payoutHistory(db: Db, actor: Actor, rawWorkerId: unknown) {
  requireAdmin(actor);
  const workerId = parseInput(idSchema, rawWorkerId);
  await requireWorker(db, workerId);
  const rows = await db.select().from(payments).where(eq(payments.userId, workerId)).orderBy(desc(payments.processedAt), desc(payments.id));
  return rows.map(presentPayment);
}

export interface PayoutDetail {
  date: string;
  amount: number;
  applicationText: string;
}

export const ADJUSTMENT_TEXT: Record<AdjustmentKind, string> = {
  add: "Начисление администратором",
  rem: "Списание администратором",
  def: "Обнуление баланса",
};
export const CARRIED_IN_TEXT = "Остаток с прошлой выплаты";
export const CARRIED_OUT_TEXT = "Осталось на балансе после выплаты";

/** Which payout to detail: its worker and its time (the history lists payouts by time). */
export const payoutDetailsSchema = z.object({
  workerId: idSchema,
  processTime: z
    .number({ error: "Укажите время выплаты (processTime)" })
    .int({ error: "Укажите время выплаты (processTime)" })
    .nonnegative({ error: "Укажите время выплаты (processTime)" })
    .max(8.64e15, { error: "Укажите время выплаты (processTime)" }),
});

/**
 * What one payout covered (SPEC §3 detail entries): the report applications and balance adjustments it
 * settled, plus what was carried in from the previous payout and what stayed on the balance after it, so the
 * lines always add up to the payout.
 */
export async function payoutDetails(db: Db, actor: Actor, input: unknown): Promise<PayoutDetail[]> {
  requireAdmin(actor);
  const { workerId, processTime } = parseInput(payoutDetailsSchema, input);
  await requireWorker(db, workerId);
  const chain = await payoutChain(db, workerId);
  const index = chain.findIndex((p) => p.processedAt.getTime() === processTime);
  if (index < 0) throw payoutNotFound();
  const payout = chain[index];

  const [apps, adjustments] = await Promise.all([
    db
      .select({ date: applications.createdAt, amountCents: applications.amountCents, text: applications.applicationText })
      .from(applications)
      .where(eq(applications.paymentId, payout.id))
      .orderBy(asc(applications.createdAt), asc(applications.id)),
    db
      .select({ date: balanceAdjustments.createdAt, kind: balanceAdjustments.kind, amountCents: balanceAdjustments.amountCents })
      .from(balanceAdjustments)
      .where(eq(balanceAdjustments.paymentId, payout.id))
      .orderBy(asc(balanceAdjustments.createdAt), asc(balanceAdjustments.id)),
  ]);
  const lines: Array<{ date: Date; cents: number; text: string }> = [
    ...apps.map((a) => ({ date: a.date, cents: a.amountCents, text: a.text })),
    ...adjustments.map((a) => ({ date: a.date, cents: adjustmentEffect(a.kind, a.amountCents), text: ADJUSTMENT_TEXT[a.kind] })),
  ].sort((a, b) => a.date.getTime() - b.date.getTime());
  if (payout.carriedInCents !== 0) {
    lines.unshift({ date: chain[index - 1].processedAt, cents: payout.carriedInCents, text: CARRIED_IN_TEXT });
  }
  if (payout.carriedOutCents !== 0) {
    lines.push({ date: payout.processedAt, cents: -payout.carriedOutCents, text: CARRIED_OUT_TEXT });
  }
  return lines.map((l) => ({ date: l.date.toISOString(), amount: toDollars(l.cents), applicationText: l.text }));
}

/**
 * A worker's payouts in order, each with what it settled and the balance carried in and out. The first payout
 * starts from zero; each one starts from what the previous left on the balance.
 */
export async function payoutChain(db: Tx, workerId: number) {
  const rows = await selectRows(
    db as Db,
    {
      id: sql<number>`p.id`,
      amount_cents: sql<number>`p.amount_cents`,
      processed_at: sql<string | Date>`p.processed_at`,
      covered: sql<number>`coalesce((select sum(a.amount_cents) from ${applications} a where a.payment_id = p.id), 0)::bigint
          + coalesce((select sum(case when b.kind = 'add' then b.amount_cents else -b.amount_cents end)
                      from ${balanceAdjustments} b where b.payment_id = p.id), 0)::bigint`,
    },
    (list) => sql`select ${list}
        from ${payments} p
        where p.user_id = ${workerId}
        order by p.processed_at, p.id`,
  );
  let carried = 0;
  return rows.map((r) => {
    const amountCents = Number(r.amount_cents);
    const coveredCents = Number(r.covered);
    const carriedInCents = carried;
    carried = carriedInCents + coveredCents - amountCents;
    return {
      id: Number(r.id),
      amountCents,
      processedAt: new Date(r.processed_at),
      coveredCents,
      carriedInCents,
      carriedOutCents: carried,
    };
  });
}

/**
 * Cancels a payout (SPEC §7 DELETE payments/history/{id}): the money goes back on the balance, and what it
 * settled passes to the worker's next payout, or back to unsettled when there is none.
 */
export async function cancelPayout(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  return db.transaction(async (tx) => {
    const [found] = await tx.select({ userId: payments.userId }).from(payments).where(eq(payments.id, id));
    if (!found) throw payoutNotFound();
    const worker = await lockWorker(tx, found.userId);
    const [payout] = await tx.select().from(payments).where(eq(payments.id, id));
    if (!payout) throw payoutNotFound();
    const [next] = await tx
      .select({ id: payments.id })
      .from(payments)
      .where(
        and(
          eq(payments.userId, payout.userId),
          sql`(${payments.processedAt}, ${payments.id}) > (${payout.processedAt.toISOString()}::timestamptz, ${payout.id})`,
        ),
      )
      .orderBy(asc(payments.processedAt), asc(payments.id))
      .limit(1);
    const nextId = next?.id ?? null;
    await tx.update(applications).set({ paymentId: nextId, updatedAt: new Date() }).where(eq(applications.paymentId, id));
    await tx.update(balanceAdjustments).set({ paymentId: nextId }).where(eq(balanceAdjustments.paymentId, id));
    const balance = worker.balanceCents + payout.amountCents;
    checkBalanceRange(balance);
    await tx.update(users).set({ balanceCents: balance, updatedAt: new Date() }).where(eq(users.id, payout.userId));
    await tx.delete(payments).where(eq(payments.id, id));
    return { success: true, message: "Выплата отменена", balance: toDollars(balance) };
  });
}
