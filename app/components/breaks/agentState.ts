/** What /users says a manager is doing (issue 18, decision 038): the server's state codes in Russian. */
export type AgentState = "call" | "break" | "lead" | "idle";

export const AGENT_STATE_TEXT: Record<AgentState, string> = {
  call: "Разговор",
  break: "Перерыв",
  lead: "Работает с лидом",
  idle: "Ожидает",
};

/** A colour per state, readable in both themes (the text says it too). */
export const AGENT_STATE_CLASS: Record<AgentState, string> = {
  call: "bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100",
  break: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  lead: "bg-blue-100 text-blue-900 dark:bg-blue-900 dark:text-blue-100",
  idle: "bg-slate-100 text-slate-800 dark:bg-slate-700 dark:text-slate-100",
};
