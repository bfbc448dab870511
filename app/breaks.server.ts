// Server code for breaks (issue 18, decision 038): reaches route modules only through this file.
import type { AppLoadContext } from "@remix-run/node";
import type { Actor } from "#server/core/actor";
import { endBreak, startBreak } from "#server/core/breaks/breaks";
import * as z from "zod";
import { formatDuration } from "./lib/softphone/machine";
import { localPathField } from "./redirects.server";

export { BREAK_NOT_FOR_YOU, breakState, breakTimeToday, endBreak, startBreak } from "#server/core/breaks/breaks";
export type { BreakState, ManagerBreakDay } from "#server/core/breaks/breaks";
export { isAppError } from "#server/core/errors";

export const BREAK_STARTED = "Перерыв начат: новые лиды не выдаются";
export const BREAK_ALREADY_ENDED = "Перерыв уже закончен";
export const breakEnded = (seconds: number) => `Перерыв закончен, он длился ${formatDuration(seconds * 1000)}`;

/** The header's Перерыв / Закончить перерыв form: which one, and the page to come back to without JavaScript. */
export const breakForm = z.object({
  intent: z.enum(["start", "end"], { error: "Неизвестное действие" }),
  redirectTo: localPathField(),
});
/** The page to come back to, read on its own: a refused intent is answered there too. */
export const breakReturnForm = breakForm.pick({ redirectTo: true });

/** The header's toggle: starts (intent start) or ends (intent end) the actor's break; answers the message to show. */
export async function toggleBreak(context: AppLoadContext, actor: Actor, intent: z.output<typeof breakForm>["intent"]): Promise<string> {
  const { db, hub, config } = context.deps;
  if (intent === "start") {
    await startBreak(db, hub, actor);
    return BREAK_STARTED;
  }
  const result = await endBreak(db, hub, actor, config.holdMinutes);
  return result.ended ? breakEnded(result.ended.seconds) : BREAK_ALREADY_ENDED;
}
