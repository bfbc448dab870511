/**
 * The call centre's zone (SPEC §9: times are Europe/Kyiv) and the browser's way of showing an instant in it:
 * Intl only. The pages import these from here, not from business-time.ts, whose zone arithmetic (@date-fns/tz,
 * ~2 KB compressed) the browser never needs (decision 090).
 */
import { onFirstUse } from "./on-first-use";

export const BUSINESS_TIME_ZONE = "Europe/Kyiv";

const shortDateTime = onFirstUse(() => new Intl.DateTimeFormat("ru-RU", { timeZone: BUSINESS_TIME_ZONE, dateStyle: "short", timeStyle: "short" }));
/** "25.11.2026, 10:00" in Kyiv time. */
export const formatKyiv = (at: Date | string | number) => shortDateTime().format(new Date(at));
