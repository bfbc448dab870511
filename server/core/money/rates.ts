import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { settings } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { parseInput } from "../validation";
import { ratesSchema } from "../../../common/schemas/money";
import { toDollars } from "./amount";

// The input's shape is shared with the page form (common/schemas/money.ts).
export { ratesSchema } from "../../../common/schemas/money";

export async function getRates(db: Db, actor: Actor) {
  requireAdmin(actor);
  const [row] = await db
    .select({ withPassport: settings.rateWithPassportCents, withoutPassport: settings.rateWithoutPassportCents })
    .from(settings)
    .where(eq(settings.id, 1));
  return { withPassport: toDollars(row?.withPassport ?? 0), withoutPassport: toDollars(row?.withoutPassport ?? 0) };
}

/** Sets both rates; reports sent from now on earn them, earlier ones keep what they earned (applications.amountCents). */
export async function setRates(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { withPassport, withoutPassport } = parseInput(ratesSchema, input);
  await db
    .insert(settings)
    .values({ id: 1, rateWithPassportCents: withPassport, rateWithoutPassportCents: withoutPassport })
    .onConflictDoUpdate({
      target: settings.id,
      set: { rateWithPassportCents: withPassport, rateWithoutPassportCents: withoutPassport, updatedAt: new Date() },
    });
  return { withPassport: toDollars(withPassport), withoutPassport: toDollars(withoutPassport) };
}
