import { and, asc, eq, exists } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { filterManagers, filterScripts, filters, scripts } from "../../../db/schema";
import type { Actor } from "../actor";

/** The condition "this script reaches the actor": an active filter lists both him and the script (SPEC Layout). */
export function scriptReachesUser(db: Db, actor: Actor) {
  return exists(
    db
      .select({ one: filterScripts.scriptId })
      .from(filterScripts)
      .innerJoin(filters, eq(filters.id, filterScripts.filterId))
      .innerJoin(filterManagers, eq(filterManagers.filterId, filterScripts.filterId))
      .where(and(eq(filterScripts.scriptId, scripts.id), eq(filterManagers.userId, actor.id), eq(filters.isActive, true))),
  );
}

/**
 * The scripts that reach a user: those listed by an active filter that also lists him (SPEC Layout).
 * The same rule for admins: the sidebar shows what a topic gives, /scripts shows everything.
 */
export async function listScriptsForUser(db: Db, actor: Actor) {
  return db
    .select({ id: scripts.id, name: scripts.name })
    .from(scripts)
    .where(scriptReachesUser(db, actor))
    .orderBy(asc(scripts.name), asc(scripts.id));
}
