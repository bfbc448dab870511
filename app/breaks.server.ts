// Server code for breaks (issue 18, decision 038): reaches route modules only through this file.
import type { AppLoadContext } from "@remix-run/node";
import type { Actor } from "../server/core/actor";
import { endBreak, startBreak } from "../server/core/breaks/breaks";
import { badRequest } from "../server/core/errors";
import { formatDuration } from "./lib/softphone/machine";

export { BREAK_NOT_FOR_YOU, breakState, breakTimeToday, endBreak, startBreak } from "../server/core/breaks/breaks";
export type { BreakState, ManagerBreakDay } from "../server/core/breaks/breaks";
export { isAppError } from "../server/core/errors";

export const BREAK_STARTED = "Перерыв начат: новые лиды не выдаются";
export const BREAK_ALREADY_ENDED = "Перерыв уже закончен";
export const breakEnded = (seconds: number) => `Перерыв закончен, он длился ${formatDuration(seconds * 1000)}`;

/** The header's toggle: starts (intent start) or ends (intent end) the actor's break; answers the message to show. */
export async function toggleBreak(context: AppLoadContext, actor: Actor, intent: unknown): Promise<string> {
  const { db, hub, config } = context.deps;
  if (intent === "start") {
    await startBreak(db, hub, actor);
    return BREAK_STARTED;
  }
  if (intent === "end") {
    const result = await endBreak(db, hub, actor, config.holdMinutes);
    return result.ended ? breakEnded(result.ended.seconds) : BREAK_ALREADY_ENDED;
  }
  throw badRequest("Неизвестное действие", "bad_intent");
}
