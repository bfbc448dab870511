import { describe, expect, it } from "vitest";
import { withButtonLabels, withKeys } from "../../server/core/statuses/keys";

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

describe("the lead panel's keys (issue 31)", () => {
  it("gives report statuses the first digits by default, then technical, then normal", () => {
    expect(withKeys(seeded).map((s) => [s.text, s.key])).toEqual([
      ["Заявка", 1],
      ["Недозвон", 2],
      ["Занято", 3],
      ["Перезвонить", 4],
      ["Отказ", 5],
    ]);
  });

  it("keeps the digits the admin gave, fills the rest in order, and leaves statuses past the ninth without one", () => {
    const many = [
      ...seeded.map((s) => (s.text === "Перезвонить" ? { ...s, hotkey: 1 } : s)),
      ...Array.from({ length: 10 }, (_, i) => status(10 + i, `Статус ${i}`)),
    ];
    const keyed = withKeys(many);
    expect(keyed.slice(0, 3).map((s) => [s.text, s.key])).toEqual([
      ["Перезвонить", 1],
      ["Заявка", 2],
      ["Недозвон", 3],
    ]);
    expect(keyed.filter((s) => s.key !== null)).toHaveLength(9);
    expect(keyed.slice(9).every((s) => s.key === null)).toBe(true);
  });

  it("tells alike buttons apart by their status's text", () => {
    // An admin's own status whose shorter button says «Отказ» too (decision 081: a second name is made on purpose).
    const labels = withButtonLabels([...seeded, status(6, "Отказ от услуги", { buttonText: "Отказ" })]).map((s) => s.label);
    expect(labels.filter((l) => l.startsWith("Отказ"))).toEqual(["Отказ", "Отказ · Отказ от услуги"]);
    expect(labels).toContain("Заявка");
  });
});
