import { describe, expect, it } from "vitest";
import { pieSlices } from "../../app/components/charts/pieSlices";
import { parseCents } from "../../server/core/money/amount";
import { kyivDay } from "../../common/business-time";

describe("kyivDay", () => {
  it.each([
    // Winter: UTC+2.
    ["2026-11-22T07:00:00Z", "2026-11-21T22:00:00.000Z", "2026-11-22T22:00:00.000Z"],
    // A second before and at Kyiv midnight.
    ["2026-11-21T21:59:59Z", "2026-11-20T22:00:00.000Z", "2026-11-21T22:00:00.000Z"],
    ["2026-11-21T22:00:00Z", "2026-11-21T22:00:00.000Z", "2026-11-22T22:00:00.000Z"],
    // Summer: UTC+3.
    ["2026-06-30T21:30:00Z", "2026-06-30T21:00:00.000Z", "2026-07-01T21:00:00.000Z"],
    // The spring-forward day has 23 hours, the fall-back day 25.
    ["2026-03-29T12:00:00Z", "2026-03-28T22:00:00.000Z", "2026-03-29T21:00:00.000Z"],
    ["2026-10-25T12:00:00Z", "2026-10-24T21:00:00.000Z", "2026-10-25T22:00:00.000Z"],
  ])("%s falls in [%s, %s)", (now, start, end) => {
    const day = kyivDay(new Date(now));
    expect([day.start.toISOString(), day.end.toISOString()]).toEqual([start, end]);
  });
});

describe("parseCents", () => {
  it.each([
    ["12", 1200],
    ["12.5", 1250],
    ["12,50", 1250],
    ["0.1", 10],
    ["-3.10", -310],
    [" 7 ", 700],
    [19.99, 1999],
    [0.29, 29],
    ["9999999.99", 999999999],
  ])("reads %j as %i cents exactly", (input, cents) => {
    expect(parseCents(input)).toBe(cents);
  });

  it.each([["1.005"], ["1e3"], ["abc"], [""], ["10000000"], [Number.NaN], [null], [{}], ["1.2.3"]])("refuses %j", (input) => {
    expect(parseCents(input)).toBeNull();
  });
});

describe("pieSlices", () => {
  it("keeps the 8 largest and folds the rest into Другое, with rounded percents", () => {
    const entries = Array.from({ length: 10 }, (_, i) => ({ label: `S${i + 1}`, value: 10 - i, color: `#00000${i}` }));
    const slices = pieSlices(entries);
    expect(slices.map((s) => [s.label, s.percent])).toEqual([
      ["S1", 18],
      ["S2", 16],
      ["S3", 15],
      ["S4", 13],
      ["S5", 11],
      ["S6", 9],
      ["S7", 7],
      ["S8", 5],
      ["Другое", 5],
    ]);
    // Each named slice keeps its own colour whatever its rank; Другое is grey.
    expect(slices.map((s) => s.color)).toEqual(["#000000", "#000001", "#000002", "#000003", "#000004", "#000005", "#000006", "#000007", "#64748b"]);
    const reversed = pieSlices([{ label: "S2", value: 99, color: "#000001" }, ...entries.slice(0, 1)]);
    expect(reversed.map((s) => [s.label, s.color])).toEqual([
      ["S2", "#000001"],
      ["S1", "#000000"],
    ]);
    expect(pieSlices([{ label: "a", value: 0, color: "#111111" }])).toEqual([]);
    expect(pieSlices([{ label: "a", value: 3, color: "#111111" }]).map((s) => s.percent)).toEqual([100]);
  });
});
