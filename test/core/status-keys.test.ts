import { describe, expect, it } from "vitest";
import { withButtonLabels, withKeys } from "../../server/core/statuses/keys";
import { sortStatuses } from "../../server/core/statuses/order";

const status = (
  id: number,
  text: string,
  rest: Partial<{ order: number; isReportStatus: boolean; isTechnical: boolean; hotkey: number | null; buttonText: string }> = {},
) => ({
  id,
  text,
  buttonText: rest.buttonText ?? text,
  order: rest.order ?? id,
  isReportStatus: rest.isReportStatus ?? false,
  isTechnical: rest.isTechnical ?? false,
  hotkey: rest.hotkey ?? null,
});

const seeded = [
  status(1, "Недозвон", { isTechnical: true }),
  status(2, "Занято", { isTechnical: true }),
  status(3, "Перезвонить"),
  status(4, "Отказ"),
  status(5, "Заявка", { isReportStatus: true }),
];

describe("the lead panel's keys (issue 31) and its order (issue 41, decision 085)", () => {
  it("lists technical statuses first, then normal, report last; report statuses keep the first digits by default", () => {
    expect(withKeys(seeded).map((s) => [s.text, s.key])).toEqual([
      ["Недозвон", 2],
      ["Занято", 3],
      ["Перезвонить", 4],
      ["Отказ", 5],
      ["Заявка", 1],
    ]);
    // The row is the one order of every list (order.ts), whatever the order of the rows handed in.
    expect(withKeys([...seeded].reverse()).map((s) => s.id)).toEqual(sortStatuses(seeded).map((s) => s.id));
  });

  it("keeps the digits the admin gave, fills the rest in the key order, and leaves statuses past the ninth without one", () => {
    const many = [
      ...seeded.map((s) => (s.text === "Перезвонить" ? { ...s, hotkey: 1 } : s)),
      ...Array.from({ length: 10 }, (_, i) => status(10 + i, `Статус ${i}`)),
    ];
    const keyed = withKeys(many);
    const keyOf = new Map(keyed.map((s) => [s.text, s.key]));
    expect([keyOf.get("Перезвонить"), keyOf.get("Заявка"), keyOf.get("Недозвон")]).toEqual([1, 2, 3]);
    expect(keyed.filter((s) => s.key !== null)).toHaveLength(9);
    // A key moves no button: the row stays in the one order.
    expect(keyed.map((s) => s.id)).toEqual(sortStatuses(many).map((s) => s.id));
    expect(keyed.at(-1)?.text).toBe("Заявка");
  });

  it("tells alike buttons apart by their status's text", () => {
    // An admin's own status whose shorter button says «Отказ» too (decision 081: a second name is made on purpose).
    const labels = withButtonLabels([...seeded, status(6, "Отказ от услуги", { buttonText: "Отказ" })]).map((s) => s.label);
    expect(labels.filter((l) => l.startsWith("Отказ"))).toEqual(["Отказ", "Отказ · Отказ от услуги"]);
    expect(labels).toContain("Заявка");
  });
});
