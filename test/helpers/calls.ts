import { eq } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { calls, type Call } from "../../db/schema";

/**
 * A manager's calls in the call log once `count` of them exist and all have ended: the softphone reports travel
 * after what the page shows, so a test waits for them.
 */
export async function endedCallsOf(db: DbHandle["db"], userId: number, count: number, timeoutMs = 15_000): Promise<Call[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db.select().from(calls).where(eq(calls.userId, userId)).orderBy(calls.id);
    if (rows.length >= count && rows.every((row) => row.endedAt !== null)) return rows;
    if (Date.now() > deadline) throw new Error(`call log of user ${userId}: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * An answered outgoing call of `userId` in the call log, as the proxy would have written it: `talkSeconds` of talk
 * (95 unless given) that began `startedAgoMs` ago (5 s: the week's numbers see it even just after midnight) and has
 * ended. `fields` set the rest (a contact, a recording).
 */
export async function insertAnsweredCall(
  db: DbHandle["db"],
  userId: number,
  filterId: number | null,
  { startedAgoMs = 5_000, ...fields }: Partial<typeof calls.$inferInsert> & { startedAgoMs?: number } = {},
): Promise<Call> {
  const startedAt = new Date(Date.now() - startedAgoMs);
  const [row] = await db
    .insert(calls)
    .values({
      userId,
      filterId,
      number: "+380501112233",
      direction: "out",
      startedAt,
      answeredAt: startedAt,
      endedAt: new Date(),
      talkSeconds: 95,
      outcome: "answered",
      ...fields,
    })
    .returning();
  return row;
}
