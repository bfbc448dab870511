import { getCountryCallingCode, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";

/**
 * The dedup and search key of a phone: E.164 digits without the plus ("380501234567"), whichever common way the
 * number was written ("050 123-45-67", "+380 (50) 123 45 67", "00380501234567", "380501234567"). Numbers the
 * library cannot place keep their bare digits, so two identical oddities still match. No digits: "".
 */
export function phoneKey(raw: string, region: string): string {
  const text = raw.trim();
  if (!text) return "";
  const digits = text.replace(/\D/g, "");
  if (!digits) return "";
  const fast = fastKey(text, digits, region);
  if (fast !== null) return fast;
  const local = parsePhoneNumberFromString(text, region as CountryCode);
  if (local?.isPossible()) return local.number.slice(1);
  // "79161234567": an international number written without its plus.
  if (digits.length >= 8) {
    const international = parsePhoneNumberFromString(`+${digits}`);
    if (international?.isPossible()) return international.number.slice(1);
  }
  return digits;
}

/**
 * The common shapes of a region's numbers, decided without the library (it costs about 30 µs a number, which
 * is most of an import's time): the same answer the library gives, checked by a property test. Regions not
 * listed always go through the library.
 */
const PLANS: Record<string, { cc: string; nsn: number; trunk: string; idd: string }> = {
  UA: { cc: "380", nsn: 9, trunk: "0", idd: "00" },
  RU: { cc: "7", nsn: 10, trunk: "8", idd: "810" },
};

function fastKey(text: string, digits: string, region: string): string | null {
  const plan = PLANS[region];
  // Numbers dialled with the international prefix (00…, 8 10…) are left to the library.
  if (!plan || !/^\+?[\d\s()\-.]+$/.test(text) || digits.startsWith(plan.idd)) return null;
  const international = text.startsWith("+");
  if (digits.length === plan.cc.length + plan.nsn && digits.startsWith(plan.cc)) return digits;
  if (!international && plan.trunk && digits.length === plan.nsn + 1 && digits.startsWith(plan.trunk)) {
    return plan.cc + digits.slice(1);
  }
  return null;
}

/** True when a search term looks like a phone (digits and phone punctuation only, at least 5 digits). */
export function looksLikePhone(term: string): boolean {
  return /^[\d\s()+\-.]+$/.test(term) && term.replace(/\D/g, "").length >= 5;
}

/**
 * A phone as the client card shows it: one readable format whatever way the file wrote it (issue 17): the
 * region's own numbers in national format ("093 874 2727" for UA), others international ("+48 512 345 678").
 * What the library cannot place is shown as written. The stored original is untouched (export keeps it).
 */
export function displayPhone(raw: string, region: string): string {
  const text = raw.trim();
  const key = phoneKey(text, region);
  if (!key) return text;
  const parsed = parsePhoneNumberFromString(`+${key}`);
  if (!parsed?.isPossible()) return text;
  let home: string | null = null;
  try {
    home = getCountryCallingCode(region as CountryCode);
  } catch {
    home = null;
  }
  return parsed.countryCallingCode === home ? parsed.formatNational() : parsed.formatInternational();
}

/** The numbers written in one contact's phone field ("050 123 45 67, 067 765 43 21" holds two). */
export function phonesIn(text: string): string[] {
  return text
    .split(/[,;/\n]|\s{2,}|\s+(?:и|или|доб\.?)\s+/i)
    .map((part) => part.trim())
    .filter(Boolean);
}
