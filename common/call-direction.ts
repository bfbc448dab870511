// Run by the server (the access log's CSV) and the browser (every screen that lists calls): a call's direction.

/** Which way a call went (issue 42): the client called us, or a manager called him. db/schema/calls' CALL_DIRECTIONS. */
export type CallDirectionValue = "in" | "out";

const DIRECTION_TEXT: Record<CallDirectionValue, string> = { in: "входящий", out: "исходящий" };

/**
 * A call's direction as every list of calls says it (the client's history, the incoming card, the dashboard's
 * recordings, scoring, the access log and its CSV): «входящий» or «исходящий»; `capital` for the start of a line.
 */
export function callDirectionText(direction: CallDirectionValue, { capital = false }: { capital?: boolean } = {}): string {
  const text = DIRECTION_TEXT[direction];
  return capital ? text[0].toUpperCase() + text.slice(1) : text;
}
