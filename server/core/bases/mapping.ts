import { z } from "zod";
import { looksLikePhone } from "./phone";

/** What a spreadsheet column becomes: a Lead field of SPEC §3, or nothing. */
export const MAPPING_FIELDS = [
  "skip",
  "name",
  "phone",
  "city",
  "address",
  "age",
  "additionalInfo1",
  "additionalInfo2",
  "additionalInfo3",
  "additionalInfo4",
  "timeZone",
  "consent",
] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number];
export type ContactField = Exclude<MappingField, "skip">;
/**
 * «Часовой пояс» is no contact field of its own: its cell, when readable, becomes the contact's calling-hours zone
 * instead of the one from the phone (zone-cell.ts, decision 062).
 */
export const ZONE_FIELD = "timeZone" satisfies MappingField;
/**
 * «Согласие на звонки» is no contact field either: its cell (a date, or yes/no) becomes contacts.consent_at
 * (consent-cell.ts, issue 43), which a topic «только с согласием» requires.
 */
export const CONSENT_FIELD = "consent" satisfies MappingField;

/** The one word for a contact's extra fields, everywhere (import mapping, search, export, card): issue 17. */
export const extraFieldLabel = (n: number) => `Доп. поле ${n}`;

/** The SPEC's column types, as the mapping table shows them. */
export const MAPPING_LABELS: Record<MappingField, string> = {
  skip: "Выберите тип",
  name: "ФИО",
  phone: "Номер",
  city: "Город",
  address: "Адрес",
  age: "Возраст",
  additionalInfo1: extraFieldLabel(1),
  additionalInfo2: extraFieldLabel(2),
  additionalInfo3: extraFieldLabel(3),
  additionalInfo4: extraFieldLabel(4),
  timeZone: "Часовой пояс",
  consent: "Согласие на звонки",
};

/** What the import page says of the «Часовой пояс» column: the forms read (zone-cell.ts). */
export const ZONE_FIELD_HELP =
  "Столбец «Часовой пояс»: название пояса (Europe/Moscow, Asia/Vladivostok) или целое смещение от UTC (UTC+5, GMT+3, +05:00). " +
  "Если ячейка пустая или не распознана, пояс берётся по номеру телефона";

/** What the import page says of the «Согласие на звонки» column: the forms read (consent-cell.ts). */
export const CONSENT_FIELD_HELP =
  "Столбец «Согласие на звонки»: дата согласия (15.01.2026, 2026-01-15) или «да»/«нет»; пустая или нераспознанная ячейка — согласия нет";

export const mappingsSchema = z
  .array(z.enum(MAPPING_FIELDS, { error: "Неизвестный тип столбца в сопоставлении" }), {
    error: "Сопоставление столбцов должно быть JSON-массивом",
  })
  .max(100, { error: "Слишком много столбцов в сопоставлении" })
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    for (const field of fields) {
      if (field === "skip") continue;
      if (seen.has(field)) {
        ctx.addIssue({ code: "custom", message: `Тип «${MAPPING_LABELS[field]}» выбран для нескольких столбцов` });
        return;
      }
      seen.add(field);
    }
    // A base is for calling: without a phone column it would hand out contacts nobody can call (issue 31).
    if (!seen.has("phone")) ctx.addIssue({ code: "custom", message: NO_PHONE_MAPPED });
  });

export const NO_PHONE_MAPPED = "Укажите столбец с номером телефона";
/** A file none of whose columns holds phone numbers (a text of notes, a list of names): no base is made of it. */
export const NO_PHONE_COLUMN =
  "В файле нет столбца с номерами телефонов: база не создана. Загрузите таблицу клиентов, где в одном из столбцов — телефоны";

const normalise = (header: string) =>
  header
    .toLowerCase()
    .replace(/ё/g, "е")
    .replace(/[.,:;_\-№#()*"']/g, " ")
    .replace(/\s+/g, " ")
    .trim();

const HEADERS: Array<[Exclude<ContactField, `additionalInfo${number}`>, string[]]> = [
  ["name", ["фио", "ф и о", "имя", "фамилия имя отчество", "фамилия", "клиент", "имя клиента", "name", "full name", "fullname", "client"]],
  [
    "phone",
    [
      "телефон",
      "тел",
      "номер",
      "номер телефона",
      "телефон клиента",
      "мобильный",
      "моб",
      "моб телефон",
      "мобильный телефон",
      "phone",
      "phone number",
      "tel",
      "telephone",
      "mobile",
    ],
  ],
  ["city", ["город", "нас пункт", "населенный пункт", "city", "town"]],
  ["address", ["адрес", "адрес клиента", "улица", "address"]],
  ["age", ["возраст", "лет", "age"]],
  ["timeZone", ["часовой пояс", "пояс", "таймзона", "time zone", "timezone", "tz"]],
  ["consent", ["согласие на звонки", "согласие", "дата согласия", "consent"]],
];
const EXTRA = /^(доп|дополнительн|примечани|комментари|инфо|информац|info|note|comment)/;

/** The field a header names, if it is one we know. */
export function fieldForHeader(header: string): ContactField | "extra" | null {
  const h = normalise(header);
  if (!h) return null;
  for (const [field, names] of HEADERS) if (names.includes(h)) return field;
  if (EXTRA.test(h)) return "extra";
  return null;
}

/**
 * A sensible mapping for a file: from its header row when it has one (ФИО, Телефон, Город, Адрес, Возраст and
 * common variants; extra columns fill Доп. поле 1 to 4), otherwise from the look of the first rows.
 */
export function suggestMapping(rows: string[][], columnCount: number): { hasHeader: boolean; mapping: MappingField[] } {
  const mapping: MappingField[] = Array.from({ length: columnCount }, () => "skip");
  const header = rows[0] ?? [];
  const used = new Set<MappingField>();
  let extras = 0;
  header.forEach((cell, i) => {
    const field = fieldForHeader(cell);
    if (!field || i >= columnCount) return;
    if (field === "extra") {
      if (extras < 4) {
        extras++;
        mapping[i] = `additionalInfo${extras}` as MappingField;
      }
    } else if (!used.has(field)) {
      used.add(field);
      mapping[i] = field;
    }
  });
  const hasHeader = mapping.some((field) => field !== "skip");

  // The column of phone-like values is the phone when no header names one; without a header, the first column of
  // words is the name.
  const sample = hasHeader ? rows.slice(1, 21) : rows.slice(0, 20);
  for (let i = 0; i < columnCount; i++) {
    if (!used.has("phone") && mapping[i] === "skip" && phoneShare(sample, i) >= 0.6) {
      used.add("phone");
      mapping[i] = "phone";
    }
  }
  if (hasHeader) return { hasHeader, mapping };
  for (let i = 0; i < columnCount; i++) {
    if (!used.has("name") && mapping[i] === "skip" && share(sample, i, (c) => /\p{L}{2,}/u.test(c)) >= 0.6) {
      used.add("name");
      mapping[i] = "name";
    }
  }
  return { hasHeader, mapping };
}

/** The part of column `i`'s filled cells in `rows` that pass `test` (0 for a column with none filled). */
function share(rows: string[][], i: number, test: (cell: string) => boolean): number {
  const cells = rows.map((row) => row[i] ?? "").filter(Boolean);
  return cells.length ? cells.filter(test).length / cells.length : 0;
}
/** The part of column `i`'s filled cells that look like a phone number. */
export const phoneShare = (rows: string[][], i: number) => share(rows, i, looksLikePhone);

/** Spreadsheet column letters: 0 → A, 26 → AA. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}
