/** Money is USD in ru-RU format; times are Europe/Kyiv, ru-RU (SPEC §9). Each formatter is made on its first use. */
import { BUSINESS_TIME_ZONE } from "../../common/business-zone";
import { onFirstUse } from "../../common/on-first-use";

const MONEY = ["ru-RU", { style: "currency", currency: "USD" }] as const;
const usd = onFirstUse(() => new Intl.NumberFormat(...MONEY));
export const formatUsd = (amount: number) => usd().format(amount);

/**
 * Decision 094, the slow link: the document's script that makes a money formatter once, in the browser's first
 * idle moment after the document is read (app/lib/prepared-formats.tsx). A renderer's first Intl object loads the
 * locale's data (36-51 ms for this one in a fresh Chromium 156 page here, 0.2-4 ms for the next), and the layout's
 * balance formats a sum while React hydrates: made while the page's modules are still on their way, that load is
 * off the path to interactive. Built from the formatter's own options, so that it prepares this one.
 */
export const PREPARE_MONEY_FORMAT = `(self.requestIdleCallback||setTimeout)(function(){new Intl.NumberFormat(${MONEY.map((part) => JSON.stringify(part)).join(",")}).format(0)})`;

const dateTime = onFirstUse(
  () =>
    new Intl.DateTimeFormat("ru-RU", {
      timeZone: BUSINESS_TIME_ZONE,
      day: "2-digit",
      month: "2-digit",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }),
);
export const formatDateTime = (value: Date | string | number) => dateTime().format(new Date(value));

/** A duration as ч:мм:сс, hours always shown (a day's talk time: "0:01:05", "12:40:00"). */
export function formatHoursMinutesSeconds(totalSeconds: number): string {
  const total = Math.max(0, Math.floor(totalSeconds));
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${Math.floor(total / 3600)}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

const oneDecimal = onFirstUse(() => new Intl.NumberFormat("ru-RU", { maximumFractionDigits: 1 }));
/** A share in percent, one decimal, Russian style ("33,3 %"); a dash when there is nothing to divide. */
export const formatPercent = (value: number | null) => (value === null ? "—" : `${oneDecimal().format(value)}\u00a0%`);
/** A ratio with one decimal ("1,5"); a dash when there is nothing to divide. */
export const formatRatio = (value: number | null) => (value === null ? "—" : oneDecimal().format(value));
