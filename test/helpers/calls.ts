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
