import fs from "node:fs";
import { sql, type SQL } from "drizzle-orm";
import { getExampleNumber, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";
import examples from "libphonenumber-js/examples.mobile.json";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict, notFound } from "../errors";
import { looksLikePhone, phoneKey, phonesIn } from "../bases/phone";
import { FormulaCells, formulasRefused } from "../bases/import";
import { readRows, workbookSignature } from "../spreadsheets";
import { fileRequired } from "../bases/uploads";
import { idSchema, parseInput } from "../validation";
import { enqueueListedClients } from "../webhooks/queue";
import { addOneSchema, pasteSchema } from "../../../common/schemas/dnc";

/**
 * The do-not-call list (issue 18, decision 036): numbers never handed out, kept by the import's own normalised key
 * (`phoneKey`, the PHONE_REGION setting), so a number matches however it was written in a base or on the list.
 */

/**
 * The claim's rule, as one SQL predicate over a contacts row named `contactAlias`: its number is not on the list.
 * One probe of the unique index do_not_call_phone_key_idx per candidate row. Contacts without a phone have the key
 * "", which the list never holds.
 */
export function mayBeCalled(contactAlias: string): SQL {
  return sql`not ${isListed(sql`${sql.identifier(contactAlias)}.phone_key`)}`;
}

/** The rule's other side, for any phone key expression: this number is on the list. */
export function isListed(phoneKey: SQL): SQL {
  return sql`exists (select 1 from do_not_call dnc where dnc.phone_key = ${phoneKey})`;
}

export const PAGE_SIZE = 50;
/** Numbers one paste or one file may hold. */
export const MAX_NUMBERS = 200_000;
/** A plain-text list file is read whole: this is far above 200,000 lines. */
const MAX_TEXT_BYTES = 10 * 1024 * 1024;
/** Invalid lines echoed back in a report (the count is always whole). */
const INVALID_SHOWN = 20;
const INSERT_BATCH = 5000;

// The inputs' shapes are shared with the page forms (common/schemas/dnc.ts).
export { addOneSchema, pasteSchema, PHONE_REQUIRED } from "../../../common/schemas/dnc";
export const phoneInvalid = (raw: string) => badRequest(`«${raw.slice(0, 50)}» не похоже на номер телефона`, "phone_invalid");
export const ALREADY_LISTED = "Этот номер уже в списке «Не звонить»";
export const dncNotFound = () => notFound("Номера нет в списке «Не звонить»", "do_not_call_not_found");

/**
 * One number added by hand must be a real one (issue 41: «0501234» was listed as «+0501234» with a success toast, and
 * the admin thought a number was blocked that is not): libphonenumber-js must make it valid for the region
 * (PHONE_REGION), or it is refused with why and an example of the region's numbers.
 */
export function phoneNotValid(raw: string, region: string) {
  let example = "";
  try {
    example = getExampleNumber(region as CountryCode, examples)?.formatNational() ?? "";
  } catch {
    example = "";
  }
  const hint = example ? ` (пример: ${example}; номер другой страны — с «+» и её кодом)` : " (номер с «+» и кодом страны)";
  return badRequest(`«${raw.slice(0, 50)}» — неполный или несуществующий номер телефона${hint}`, "phone_invalid");
}

/** The list's key of one number written by hand, or null when libphonenumber-js finds it no valid number. */
export function validDoNotCallKey(raw: string, region: string): string | null {
  const key = doNotCallKey(raw, region);
  return key && parsePhoneNumberFromString(`+${key}`)?.isValid() ? key : null;
}

/** The list's key of one written number, or null when it is not a phone (the same key the import stores). */
export function doNotCallKey(raw: string, region: string): string | null {
  const text = raw.trim();
  if (!looksLikePhone(text)) return null;
  const key = phoneKey(text, region);
  // E.164 has at most 15 digits; fewer than 5 is no number anyone dials.
  return key.length >= 5 && key.length <= 15 ? key : null;
}

export interface DoNotCallItem {
  id: number;
  phone: string;
  phoneKey: string;
  addedBy: string;
  addedAt: string;
}

/** An item's row: the number, who added it (his login now, and as it was then) and when. */
const ITEM_COLUMNS = {
  id: sql<number>`d.id`,
  phone: sql<string>`d.phone`,
  phone_key: sql<string>`d.phone_key`,
  added_by_login: sql<string>`d.added_by_login`,
  login: sql<string | null>`u.login`,
  added_at: sql<Date | string>`d.added_at`,
};
type ItemRow = RowOf<typeof ITEM_COLUMNS>;

const present = (row: ItemRow): DoNotCallItem => ({
  id: Number(row.id),
  phone: row.phone,
  phoneKey: row.phone_key,
  addedBy: row.login ?? row.added_by_login,
  addedAt: new Date(row.added_at).toISOString(),
});

export const listQuerySchema = z.object({
  q: z.string({ error: "Неверный запрос" }).trim().max(100, { error: "Слишком длинный запрос (не более 100 символов)" }).optional().default(""),
  page: z.coerce
    .number({ error: "Неверный номер страницы" })
    .int({ error: "Неверный номер страницы" })
    .min(1, { error: "Неверный номер страницы" })
    .max(100_000, { error: "Неверный номер страницы" })
    .optional()
    .default(1),
});

export interface DoNotCallPage {
  items: DoNotCallItem[];
  total: number;
  page: number;
  pages: number;
  q: string;
}

/** A page of the list, newest first; `q` finds a number however it is written, or by a run of its digits. */
export async function listDoNotCall(db: Db, actor: Actor, rawInput: unknown, options: { phoneRegion: string }): Promise<DoNotCallPage> {
  requireAdmin(actor);
  const { q, page: asked } = parseInput(listQuerySchema, rawInput ?? {});
  const digits = q.replace(/\D/g, "");
  if (q && !digits) throw badRequest("Для поиска введите цифры номера", "term_not_digits");
  const key = q ? doNotCallKey(q, options.phoneRegion) : null;
  const where = !q ? sql`true` : key ? sql`(d.phone_key = ${key} or d.phone_key like ${`%${digits}%`})` : sql`d.phone_key like ${`%${digits}%`}`;
  const [{ total }] = await selectRows(
    db,
    { total: sql<number | string>`count(*)` },
    (list) => sql`select ${list} from do_not_call d where ${where}`,
  );
  const pages = Math.max(1, Math.ceil(Number(total) / PAGE_SIZE));
  const page = Math.min(asked, pages);
  const rows = await selectRows(
    db,
    ITEM_COLUMNS,
    (list) => sql`select ${list}
        from do_not_call d left join users u on u.id = d.added_by
        where ${where}
        order by d.added_at desc, d.id desc
        limit ${PAGE_SIZE} offset ${(page - 1) * PAGE_SIZE}`,
  );
  return { items: rows.map(present), total: Number(total), page, pages, q };
}

/** Adds one number (a valid one for the region); 409 when it is already on the list (however it was written then). */
export async function addDoNotCall(db: Db, actor: Actor, rawInput: unknown, options: { phoneRegion: string }): Promise<DoNotCallItem> {
  requireAdmin(actor);
  const { phone } = parseInput(addOneSchema, rawInput);
  if (!doNotCallKey(phone, options.phoneRegion)) throw phoneInvalid(phone);
  const key = validDoNotCallKey(phone, options.phoneRegion);
  if (!key) throw phoneNotValid(phone, options.phoneRegion);
  // The number and its clients' webhook events in one transaction (issue 44).
  const row = await db.transaction(async (tx) => {
    const [added] = await selectRows(
      tx as unknown as Db,
      {
        id: sql<number>`id`,
        phone: sql<string>`phone`,
        phone_key: sql<string>`phone_key`,
        added_by_login: sql<string>`added_by_login`,
        login: sql<string | null>`added_by_login`,
        added_at: sql<Date | string>`added_at`,
      } satisfies Record<keyof ItemRow, unknown>,
      (list) => sql`insert into do_not_call (phone_key, phone, added_by, added_by_login)
        values (${key}, ${phone}, ${actor.id}, ${actor.login})
        on conflict (phone_key) do nothing
        returning ${list}`,
    );
    if (added) await enqueueListedClients(tx as unknown as Db, actor, [added.id]);
    return added;
  });
  if (!row) throw conflict(ALREADY_LISTED, "already_listed");
  return present(row);
}

/** What a paste or a file added: new numbers, those already there (or repeated), and what is not a number. */
export interface BulkReport {
  added: number;
  already: number;
  invalid: number;
  /** The first invalid lines, as written. */
  invalidSamples: string[];
}

/** Inserts keyed numbers, skipping those listed; answers how many were new. */
async function insertKeys(db: Db, actor: { id: number; login: string }, numbers: Map<string, string>): Promise<number> {
  let added = 0;
  const entries = [...numbers];
  for (let i = 0; i < entries.length; i += INSERT_BATCH) {
    const part = entries.slice(i, i + INSERT_BATCH);
    const rows = await selectRows(
      db,
      { id: sql<number>`id` },
      (list) => sql`insert into do_not_call (phone_key, phone, added_by, added_by_login)
          select k, p, ${actor.id}, ${actor.login}
          from unnest(${sql.param(part.map(([k]) => k))}::text[], ${sql.param(part.map(([, p]) => p))}::text[]) as t(k, p)
          on conflict (phone_key) do nothing
          returning ${list}`,
    );
    await enqueueListedClients(
      db,
      actor,
      rows.map((row) => row.id),
    );
    added += rows.length;
  }
  return added;
}

/** Keys the given lines (one number each) and adds the valid ones in one transaction. */
async function addLines(db: Db, actor: Actor, lines: Iterable<string>, region: string): Promise<BulkReport> {
  const numbers = new Map<string, string>();
  let seen = 0;
  let invalid = 0;
  const invalidSamples: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (++seen > MAX_NUMBERS) {
      throw badRequest(`Слишком много номеров за один раз: не более ${MAX_NUMBERS.toLocaleString("ru-RU")}`, "too_many_numbers");
    }
    const key = doNotCallKey(line, region);
    if (!key) {
      invalid++;
      if (invalidSamples.length < INVALID_SHOWN) invalidSamples.push(line.slice(0, 100));
      continue;
    }
    if (!numbers.has(key)) numbers.set(key, line.slice(0, 100));
  }
  if (seen === 0) throw badRequest("Вставьте хотя бы один номер (по одному в строке)", "numbers_required");
  const added = await db.transaction((tx) => insertKeys(tx as unknown as Db, actor, numbers));
  return { added, already: seen - invalid - added, invalid, invalidSamples };
}

/** Paste many: one number a line. */
export async function pasteDoNotCall(db: Db, actor: Actor, rawInput: unknown, options: { phoneRegion: string }): Promise<BulkReport> {
  requireAdmin(actor);
  const { text } = parseInput(pasteSchema, rawInput);
  return addLines(db, actor, text.split(/\r?\n/), options.phoneRegion);
}

/**
 * Import a file: an .xlsx/.xls (read in the sheet worker like a base's; every cell that looks like a phone is a
 * number, a first row with none is a header) or a plain text list (one number a line, UTF-8).
 */
export async function importDoNotCall(
  db: Db,
  actor: Actor,
  input: { file?: { path: string } | null },
  options: { phoneRegion: string },
): Promise<BulkReport> {
  requireAdmin(actor);
  if (!input.file) throw fileRequired();
  const path = input.file.path;
  const size = fs.statSync(path).size;
  if (size === 0) throw badRequest("Файл пустой", "empty_file");
  if (!workbookSignature(path)) {
    if (size > MAX_TEXT_BYTES) throw badRequest("Текстовый файл слишком большой: не более 10 МБ", "file_too_large");
    const text = fs.readFileSync(path, "utf8").replace(/^\uFEFF/, "");
    if (text.includes("\u0000")) throw badRequest("Файл не похож на список номеров: загрузите .xlsx, .xls или текст", "not_a_list");
    return addLines(db, actor, text.split(/\r?\n/), options.phoneRegion);
  }
  const lines: string[] = [];
  // A number the file holds as a formula without its value would be missed (or taken stale) without a word: a
  // client who asked not to be called would be called. Any such cell refuses the file (decision 043).
  const formulas = new FormulaCells();
  for await (const row of readRows(path)) {
    for (const column of row.computed ?? []) formulas.add(column, row.number);
    const phones = row.cells.filter((cell) => looksLikePhone(cell.trim()));
    if (phones.length) lines.push(...phones);
    // A first row without a number is the header; any other such row is reported as invalid.
    else if (row.number !== 1 && row.cells.some((cell) => cell.trim())) lines.push(row.cells.find((cell) => cell.trim()) ?? "");
    if (lines.length > MAX_NUMBERS) break;
  }
  if (formulas.count > 0) throw formulasRefused(formulas.count, formulas.named, "В файле", "Список «Не звонить» не изменён.");
  return addLines(db, actor, lines, options.phoneRegion);
}

/** Removes one number from the list by its id. */
export async function removeDoNotCall(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const rows = await selectRows(db, { phone: sql<string>`phone` }, (list) => sql`delete from do_not_call where id = ${id} returning ${list}`);
  if (!rows[0]) throw dncNotFound();
  return { success: true, message: `Номер ${rows[0].phone} убран из списка «Не звонить»` };
}

/** One item by id (the page's removal question names the number). */
export async function getDoNotCall(db: Db, actor: Actor, rawId: unknown): Promise<DoNotCallItem> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await selectRows(
    db,
    ITEM_COLUMNS,
    (list) => sql`select ${list}
        from do_not_call d left join users u on u.id = d.added_by where d.id = ${id}`,
  );
  if (!row) throw dncNotFound();
  return present(row);
}

/**
 * A do-not-call status was pressed: the turn statement already listed the contact's own key (atomically, and
 * kept it out of that turn's claim); this adds the other numbers its phone field holds, with the manager as the
 * one who added them.
 */
export async function listContactPhones(db: Db, manager: { id: number; login: string }, phone: string, region: string): Promise<number> {
  const numbers = new Map<string, string>();
  for (const part of phonesIn(phone)) {
    const key = doNotCallKey(part, region);
    if (key && !numbers.has(key)) numbers.set(key, part);
  }
  return numbers.size ? insertKeys(db, manager, numbers) : 0;
}
