/** Money is USD in ru-RU format; times are Europe/Kyiv, ru-RU (SPEC §9). */
const usd = new Intl.NumberFormat("ru-RU", { style: "currency", currency: "USD" });
export const formatUsd = (amount: number) => usd.format(amount);

const dateTime = new Intl.DateTimeFormat("ru-RU", {
  timeZone: "Europe/Kyiv",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
export const formatDateTime = (value: Date | string | number) => dateTime.format(new Date(value));

const dateOnly = new Intl.DateTimeFormat("ru-RU", { timeZone: "Europe/Kyiv", day: "2-digit", month: "2-digit", year: "numeric" });
export const formatDate = (value: Date | string | number) => dateOnly.format(new Date(value));
