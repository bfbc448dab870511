import { describe, expect, it } from "vitest";
import { kyivDate, kyivDay, kyivInstant, kyivWallClock } from "../../common/business-time";

// Kyiv moved its clocks on 29 March 2026 (03:00 → 04:00) and back on 25 October 2026 (04:00 → 03:00).
describe("the call centre's clock (Europe/Kyiv)", () => {
  it("a day is 24 hours, 23 on the spring change and 25 on the autumn one", () => {
    const hours = (d: { start: Date; end: Date }) => (d.end.getTime() - d.start.getTime()) / 3_600_000;
    expect(kyivDay(new Date("2026-01-15T12:00:00Z"))).toEqual({
      start: new Date("2026-01-14T22:00:00Z"),
      end: new Date("2026-01-15T22:00:00Z"),
    });
    expect(hours(kyivDay(new Date("2026-03-29T12:00:00Z")))).toBe(23);
    expect(hours(kyivDay(new Date("2026-10-25T12:00:00Z")))).toBe(25);
  });

  it("names the Kyiv date, not the UTC one, just after Kyiv's midnight", () => {
    expect(kyivDate(new Date("2026-06-30T21:30:00Z"))).toBe("2026-07-01");
    expect(kyivDate(new Date("2026-12-31T21:59:00Z"))).toBe("2026-12-31");
  });

  it("turns a wall-clock time into its instant and back, in winter and summer", () => {
    expect(kyivInstant(2026, 1, 15, 10, 0)).toEqual(new Date("2026-01-15T08:00:00Z"));
    expect(kyivInstant(2026, 7, 15, 10, 0)).toEqual(new Date("2026-07-15T07:00:00Z"));
    expect(kyivWallClock(new Date("2026-10-25T00:30:00Z"))).toBe("2026-10-25T03:30");
    expect(kyivWallClock(new Date("2026-10-25T01:30:00Z"))).toBe("2026-10-25T03:30");
    expect(kyivInstant(2026, 12, 32, 10, 0)).toEqual(new Date("2027-01-01T08:00:00Z")); // «tomorrow» of 31 December
  });
});
