import fc from "fast-check";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applications, balanceAdjustments, payments } from "../../db/schema";
import type { Actor } from "../../server/core/actor";
import { isAppError } from "../../server/core/errors";
import { adjustBalance } from "../../server/core/money/balance";
import { cancelPayout, payoutChain, payoutDetails, processPayout } from "../../server/core/money/payouts";
import { setRates } from "../../server/core/money/rates";
import { createTestApp, createUser, reloadUser, type TestApp } from "../helpers/app";
import { sendReport } from "../helpers/money";

let t: TestApp;
const admin: Actor = { id: 1, login: "admin", isAdmin: true };
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const dollars = (cents: number) => (cents / 100).toFixed(2);
const toCents = (amount: number) => Math.round(amount * 100);

type Step =
  | { kind: "report"; worker: number; withPassport: boolean }
  | { kind: "rates"; withPassport: number; withoutPassport: number }
  | { kind: "add" | "rem"; worker: number; cents: number }
  | { kind: "def"; worker: number }
  | { kind: "payout"; worker: number; share: number }
  | { kind: "cancel"; worker: number; pick: number };

const worker = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("report" as const), worker, withPassport: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("rates" as const),
      withPassport: fc.integer({ min: 0, max: 5000 }),
      withoutPassport: fc.integer({ min: 0, max: 5000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom("add" as const, "rem" as const), worker, cents: fc.integer({ min: 1, max: 20000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("def" as const), worker }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("payout" as const), worker, share: fc.double({ min: 0, max: 1.2, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), worker, pick: fc.nat() }) },
);

/** Only the rules' own refusals are expected (a payout above the balance, a zero payout); anything else fails. */
async function allowRefusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!isAppError(error) || error.status !== 400) throw error;
  }
}

describe("money adds up to the cent", () => {
  it("after any sequence of reports, adjustments, resets, payouts and cancellations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), async (steps) => {
        const workers = [(await createUser(t.db)).user.id, (await createUser(t.db)).user.id];
        for (const s of steps) {
          if (s.kind === "report") await sendReport(t.db, workers[s.worker], { withPassport: s.withPassport, text: `отчёт ${s.worker}` });
          else if (s.kind === "rates")
            await setRates(t.db, admin, { withPassport: dollars(s.withPassport), withoutPassport: dollars(s.withoutPassport) });
          else if (s.kind === "add" || s.kind === "rem")
            await adjustBalance(t.db, admin, { userId: workers[s.worker], kind: s.kind, amount: dollars(s.cents) });
          else if (s.kind === "def") await adjustBalance(t.db, admin, { userId: workers[s.worker], kind: "def", amount: "" });
          else if (s.kind === "payout") {
            const balance = (await reloadUser(t.db, workers[s.worker])).balanceCents;
            const cents = Math.floor(balance * s.share);
            await allowRefusal(() => processPayout(t.db, admin, { userId: workers[s.worker], amount: dollars(cents) }));
          } else if (s.kind === "cancel") {
            const paid = await t.db.select().from(payments).where(eq(payments.userId, workers[s.worker]));
            if (paid.length) await cancelPayout(t.db, admin, paid[s.pick % paid.length].id);
          }
        }

        for (const id of workers) {
          const user = await reloadUser(t.db, id);
          const apps = await t.db.select().from(applications).where(eq(applications.userId, id));
          const adjustments = await t.db.select().from(balanceAdjustments).where(eq(balanceAdjustments.userId, id));
          const paid = await t.db.select().from(payments).where(eq(payments.userId, id));
          const credits = apps.reduce((sum, a) => sum + a.amountCents, 0);
          const adjusted = adjustments.reduce((sum, a) => sum + (a.kind === "add" ? a.amountCents : -a.amountCents), 0);
          const paidOut = paid.reduce((sum, p) => sum + p.amountCents, 0);
          // Every balance equals its credits plus adjustments minus payouts.
          expect(user.balanceCents).toBe(credits + adjusted - paidOut);

          // Each payout's detail lines add up to the payout.
          for (const p of paid) {
            const lines = await payoutDetails(t.db, admin, { workerId: id, processTime: p.processedAt.getTime() });
            expect(lines.reduce((sum, l) => sum + toCents(l.amount), 0)).toBe(p.amountCents);
          }

          // The chain of payouts loses nothing: what the last one left, plus what no payout settled yet, is the balance.
          const chain = await payoutChain(t.db, id);
          const ids = chain.map((p) => p.id);
          const unsettled =
            apps.filter((a) => a.paymentId === null).reduce((sum, a) => sum + a.amountCents, 0) +
            adjustments.filter((a) => a.paymentId === null).reduce((sum, a) => sum + (a.kind === "add" ? a.amountCents : -a.amountCents), 0);
          expect((chain.at(-1)?.carriedOutCents ?? 0) + unsettled).toBe(user.balanceCents);
          // Settled items belong to this worker's payouts only.
          for (const a of [...apps, ...adjustments]) if (a.paymentId !== null) expect(ids).toContain(a.paymentId);
          // A payout settles everything that was on the balance before it.
          const last = chain.at(-1);
          if (last) {
            const before = apps.filter((a) => a.createdAt < last.processedAt && a.paymentId === null);
            expect(before).toEqual([]);
          }
        }
      }),
      { numRuns: 30 },
    );
    // Thirty database-backed runs: more than the default per-test time on a busy two-core machine.
  }, 300_000);
});
