import fc from "fast-check";
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";
import { describe, expect, it } from "vitest";
import { phoneKey } from "../../server/core/bases/phone";

/** The key the library alone gives (the slow path phoneKey takes for shapes it does not know). */
function libraryKey(raw: string, region: string): string {
  const text = raw.trim();
  const digits = text.replace(/\D/g, "");
  if (!digits) return "";
  const local = parsePhoneNumberFromString(text, region as CountryCode);
  if (local?.isPossible()) return local.number.slice(1);
  if (digits.length >= 8) {
    const international = parsePhoneNumberFromString(`+${digits}`);
    if (international?.isPossible()) return international.number.slice(1);
  }
  return digits;
}

const separator = fc.constantFrom("", " ", "-", ".", "(", ")", " (", ") ");
/** Numbers the way people type them: optional plus, country code or trunk prefix, random separators. */
const written = fc
  .tuple(
    fc.constantFrom("", "+", "00"),
    fc.constantFrom("", "380", "38", "7", "8", "0"),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 5, maxLength: 12 }),
    fc.array(separator, { minLength: 12, maxLength: 12 }),
  )
  .map(([plus, prefix, digits, seps]) => plus + prefix + digits.map((d, i) => `${d}${seps[i]}`).join(""));

describe("phoneKey", () => {
  it.each(["UA", "RU"])("gives the library's key for any way of writing a number (%s)", (region) => {
    fc.assert(
      fc.property(written, (raw) => {
        expect(phoneKey(raw, region)).toBe(libraryKey(raw, region));
      }),
      { numRuns: 3000 },
    );
  });

  it("normalises the common Ukrainian spellings to one key", () => {
    const key = "380501234567";
    for (const raw of ["0501234567", "050 123 45 67", "(050) 123-45-67", "+380501234567", "+38 050 123 45 67", "380501234567", "00380501234567"]) {
      expect(phoneKey(raw, "UA")).toBe(key);
    }
    expect(phoneKey("", "UA")).toBe("");
    expect(phoneKey("нет телефона", "UA")).toBe("");
  });
});
