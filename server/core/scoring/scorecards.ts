import { asc, count, eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { filters, scorecardCriteria } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { filterNotFound } from "../filters/filters";
import { idSchema, parseInput } from "../validation";
import { scorecardSchema } from "../../../common/schemas/scoring";

// The shapes are in common/ (the editor checks them in the browser too); core re-exports them.
export { criterionSchema, MAX_CRITERIA, scorecardSchema } from "../../../common/schemas/scoring";

export interface ScorecardCriterion {
  id: number;
  text: string;
  weight: number;
  critical: boolean;
}

export interface Scorecard {
  filterId: number;
  filterName: string;
  criteria: ScorecardCriterion[];
}

/** A topic's criteria in order (no role check: the callers check theirs). */
export async function criteriaOf(db: Db, filterId: number): Promise<ScorecardCriterion[]> {
  return db
    .select({ id: scorecardCriteria.id, text: scorecardCriteria.text, weight: scorecardCriteria.weight, critical: scorecardCriteria.critical })
    .from(scorecardCriteria)
    .where(eq(scorecardCriteria.filterId, filterId))
    .orderBy(asc(scorecardCriteria.position), asc(scorecardCriteria.id));
}

async function topicName(db: Db, filterId: number): Promise<string> {
  const [topic] = await db.select({ name: filters.name }).from(filters).where(eq(filters.id, filterId));
  if (!topic) throw filterNotFound();
  return topic.name;
}

/** A topic's scorecard (admins). */
export async function getScorecard(db: Db, actor: Actor, rawFilterId: unknown): Promise<Scorecard> {
  requireAdmin(actor);
  const filterId = parseInput(idSchema, rawFilterId);
  const filterName = await topicName(db, filterId);
  return { filterId, filterName, criteria: await criteriaOf(db, filterId) };
}

/**
 * Replaces a topic's scorecard with these criteria, in this order (admins). Past scores keep their own copy of the
 * criteria, so nothing scored changes.
 */
export async function saveScorecard(db: Db, actor: Actor, rawFilterId: unknown, input: unknown): Promise<Scorecard> {
  requireAdmin(actor);
  const filterId = parseInput(idSchema, rawFilterId);
  const { criteria } = parseInput(scorecardSchema, input);
  await db.transaction(async (tx) => {
    // Locks the topic's row: two saves at once end as one list, not both interleaved.
    const [topic] = await tx.select({ id: filters.id }).from(filters).where(eq(filters.id, filterId)).for("update");
    if (!topic) throw filterNotFound();
    await tx.delete(scorecardCriteria).where(eq(scorecardCriteria.filterId, filterId));
    if (criteria.length > 0) {
      await tx
        .insert(scorecardCriteria)
        .values(criteria.map((c, position) => ({ filterId, position, text: c.text, weight: c.weight, critical: c.critical })));
    }
  });
  return getScorecard(db, actor, filterId);
}

/** Every topic with how many criteria its scorecard has (the /quality page's list; admins). */
export async function listScorecards(db: Db, actor: Actor): Promise<Array<{ filterId: number; filterName: string; criteria: number }>> {
  requireAdmin(actor);
  const rows = await db
    .select({ filterId: filters.id, filterName: filters.name, criteria: count(scorecardCriteria.id) })
    .from(filters)
    .leftJoin(scorecardCriteria, eq(scorecardCriteria.filterId, filters.id))
    .groupBy(filters.id, filters.name)
    .orderBy(asc(filters.name), asc(filters.id));
  return rows.map((r) => ({ ...r, criteria: Number(r.criteria) }));
}
