/**
 * Dispatched on `window` once the call log has taken a call's start or end (the server answered the report with
 * success), with the report's type as `detail`: the lead panel reads the client's history again then, instead of at
 * its next periodic refresh (issue 41 §14: «Звонок: идёт» for 12.5 s after the hang-up). A report that failed says
 * nothing: the log has nothing new to show. Its own module: the lead panel listens from hydration, while the call
 * log (call-log.ts) is fetched with the softphone, after it (decision 091).
 */
export const CALL_LOGGED = "leaddesk:call-logged";
export type CallLogged = CustomEvent<"start" | "end">;
