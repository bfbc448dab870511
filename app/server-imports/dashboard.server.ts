// The dashboard route's (_app._index) server-only imports (README.md here).
export { actorOf, requireUser } from "../auth.server";
export { breakTimeToday } from "../breaks.server";
export { drawPie } from "../components/charts/pie-drawing.server";
export { diskWarning, recentRecordedCalls } from "../calls.server";
export { getPersonalStatistics, getStatistics } from "../statistics.server";
export { scoreNumbers } from "../quality.server";
export { webhooksSwitchedOff } from "../webhooks.server";
