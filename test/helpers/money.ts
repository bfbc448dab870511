import type { DbHandle } from "../../db/client";
import { applications, databases, leadEvents, settings } from "../../db/schema";
import { creditReport } from "../../server/core/money/credit";
import { eq } from "drizzle-orm";

type Db = DbHandle["db"];

/** Sets the two earning rates (cents) straight in the settings row. */
export async function setRatesCents(db: Db, withPassport: number, withoutPassport: number) {
  await db.update(settings).set({ rateWithPassportCents: withPassport, rateWithoutPassportCents: withoutPassport }).where(eq(settings.id, 1));
}

/**
 * What the lead flow does when a manager presses a report status: the event, the credit at the rate in force
 * and the application holding what it earned, in one transaction (the real creditReport, no fake).
 */
export async function sendReport(db: Db, userId: number, options: { withPassport?: boolean; text?: string; at?: Date; statusText?: string } = {}) {
  const withPassport = options.withPassport ?? false;
  return db.transaction(async (tx) => {
    const [event] = await tx
      .insert(leadEvents)
      .values({
        userId,
        statusText: options.statusText ?? "Заявка",
        isReport: true,
        withPassport,
        clientInfo: options.text ?? "",
        ...(options.at ? { createdAt: options.at } : {}),
      })
      .returning();
    const amount = await creditReport(tx, userId, withPassport);
    const [application] = await tx
      .insert(applications)
      .values({
        userId,
        leadEventId: event.id,
        applicationText: options.text ?? "Имя: Клиент",
        withPassport,
        amountCents: amount,
        ...(options.at ? { createdAt: options.at } : {}),
      })
      .returning();
    return { event, application, amount };
  });
}

/** A status press without an application (statistics fixtures). */
export async function pressStatus(
  db: Db,
  fields: { userId: number | null; statusText: string; isTechnical?: boolean; isReport?: boolean; at?: Date; databaseId?: number },
) {
  await db.insert(leadEvents).values({
    userId: fields.userId,
    statusText: fields.statusText,
    isTechnical: fields.isTechnical ?? false,
    isReport: fields.isReport ?? false,
    databaseId: fields.databaseId,
    ...(fields.at ? { createdAt: fields.at } : {}),
  });
}

export async function createBase(db: Db, name: string, contactsCount: number, at?: Date) {
  const [base] = await db
    .insert(databases)
    .values({ name, contactsCount, ...(at ? { createdAt: at, updatedAt: at } : {}) })
    .returning();
  return base;
}
