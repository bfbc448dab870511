// Run by the server (the lead card's text) and the browser (the lead panel shows it).

/** One limit of a topic and the calls that count against it this period (issue 43, decision 075). */
export interface ContactCalls {
  period: "day" | "week" | "month";
  done: number;
  of: number;
}

const PERIOD_WORDS: Record<ContactCalls["period"], string> = { day: "сегодня", week: "на этой неделе", month: "в этом месяце" };

/** «звонков клиенту: 1 из 2 на этой неделе» (each of the topic's limits, joined by « · »), or null without limits. */
export function contactCallsLabel(calls: ContactCalls[]): string | null {
  if (calls.length === 0) return null;
  return `звонков клиенту: ${calls.map((c) => `${c.done} из ${c.of} ${PERIOD_WORDS[c.period]}`).join(" · ")}`;
}
