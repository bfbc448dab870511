import { describe, expect, it } from "vitest";
import { textColorFor, weakTextContrast } from "../../app/lib/color";

/** SPEC /edit-statuses: black or white text by luma (299, 587, 114) against 128; decision 078's contrast note. */
describe("a status button's text colour", () => {
  it("is black from luma 128 up and white below, for #rrggbb and #rgb", () => {
    expect(textColorFor("#808080")).toBe("#000000"); // luma 128
    expect(textColorFor("#7f7f7f")).toBe("#ffffff"); // luma 127
    expect(textColorFor("#ffff00")).toBe("#000000");
    expect(textColorFor("#ff0000")).toBe("#ffffff");
    expect(textColorFor("#fff")).toBe("#000000");
    expect(textColorFor("#00f")).toBe("#ffffff");
  });

  it("is pointed out where SPEC's choice reads under 4.5:1, with the ratio to a tenth (never shown as the 4.5 it misses)", () => {
    expect(weakTextContrast("#ff0000")).toBe(4); // white on red: 3.998
    expect(weakTextContrast("#7f7f7f")).toBe(4); // white on the last grey below the threshold: 4.004
    expect(weakTextContrast("#0000ff")).toBeNull(); // white on blue: 8.6
    expect(weakTextContrast("#e23020")).toBe(4.4); // white: 4.49, not shown as 4.5
    expect(weakTextContrast("#808080")).toBeNull(); // black on it: 5.3
    expect(weakTextContrast("#dc2626")).toBeNull(); // the seed's «Отказ»: 4.8
  });
});
