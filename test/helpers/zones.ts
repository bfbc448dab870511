/** The wall clock now in a time zone, "HH:MM", `shift` minutes from now (calling-hours tests set windows around it). */
export function clockIn(zone: string, shift = 0): string {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(
    new Date(Date.now() + shift * 60_000),
  );
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get("hour")}:${get("minute")}`;
}
