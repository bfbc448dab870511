import { eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { queryRows, type Db } from "../../../db/client";
import { contacts, databases, settings } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict } from "../errors";
import { awaitedLater } from "../later";
import { parseInput, requiredText } from "../validation";
import { columnLetter, MAPPING_FIELDS, type MappingField, mappingsSchema, suggestMapping } from "./mapping";
import { phoneKey } from "./phone";
import { MESSAGES, readSheetRows, type SheetRow } from "./spreadsheet";
import { fileRequired } from "./uploads";

/** Rows shown in the mapping preview. */
export const PREVIEW_ROWS = 10;
/** Contacts per insert (and per cross-base duplicate lookup)... */
const BATCH = 5000;
/** ...or fewer, when their text reaches this many characters (memory stays bounded whatever the cells hold). */
const BATCH_CHARS = 4_000_000;
/** Rows the header row is detected from, as in the preview. */
const HEAD_ROWS = 20;

/**
 * What one import may hold. A contact's fields are a name, a phone, a city, an address and short notes: a cell
 * of thousands of characters is not a contact, and one long text repeated in every row (a shared string of a
 * small file) must not grow into gigabytes in the database. Tests may lower these.
 */
export const IMPORT_LIMITS = {
  /** Characters in one imported cell. */
  maxCellChars: 1000,
  /** Characters of all imported cells together. */
  maxTotalChars: 200_000_000,
};

/** 32000 → "32 000", with a plain space as in the other messages. */
const digits = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, " ");
const cellTooLong = (row: number, column: number, length: number) =>
  badRequest(
    `Строка ${row}, столбец ${columnLetter(column)}: в ячейке ${digits(length)} символов, а в поле контакта может быть не больше ${digits(IMPORT_LIMITS.maxCellChars)}. Исправьте ячейку или не импортируйте этот столбец`,
    "contact_cell_too_long",
  );
const tooMuchText = (row: number) =>
  badRequest(
    `В файле слишком много текста для одной базы: к строке ${row} больше ${digits(IMPORT_LIMITS.maxTotalChars)} символов. Разбейте файл на части`,
    "import_too_large",
  );

export const IMPORT_SUCCESS = "База данных успешно импортирована";
/** The code of the answer when every contact of the file was a duplicate (the page shows it as a warning). */
export const ONLY_DUPLICATES = "only_duplicates";
const onlyDuplicates = (removed: number) =>
  `Ничего не импортировано: все контакты файла (${removed}) — дубли. База не создана`;
export const IMPORT_FAILURE = "Произошла ошибка при импорте базы данных";

export interface UploadedFile {
  /** The uploaded file on disk (the adapter streams it there and removes it afterwards). */
  path: string;
}

export interface PreviewColumn {
  index: number;
  /** The spreadsheet letter: A, B, ... */
  letter: string;
  /** The header row's text for this column ("" when the file has no header row). */
  header: string;
  /** The mapping suggested for it. */
  suggested: MappingField;
}

export interface Preview {
  hasHeader: boolean;
  columns: PreviewColumn[];
  /** The first data rows (after the header row, if any), every cell as text. */
  rows: string[][];
}

/** The first rows of a file and a suggested mapping of its columns (nothing is written). */
export async function previewBase(_db: Db, actor: Actor, input: { file?: UploadedFile | null }): Promise<Preview> {
  requireAdmin(actor);
  if (!input.file) throw fileRequired();
  const head: string[][] = [];
  for await (const row of readSheetRows(input.file.path, { limit: PREVIEW_ROWS + 1 })) head.push(row.cells);
  if (head.length === 0) throw badRequest(MESSAGES.empty, "empty_file");
  const columnCount = Math.max(...head.map((row) => row.length));
  const { hasHeader, mapping } = suggestMapping(head, columnCount);
  const header = hasHeader ? head[0] : [];
  return {
    hasHeader,
    columns: mapping.map((suggested, index) => ({
      index,
      letter: columnLetter(index),
      header: header[index] ?? "",
      suggested,
    })),
    rows: (hasHeader ? head.slice(1) : head.slice(0, PREVIEW_ROWS)).map((row) =>
      Array.from({ length: columnCount }, (_, i) => row[i] ?? ""),
    ),
  };
}

const jsonMappings = z.preprocess((value) => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}, mappingsSchema);

export const importInputSchema = z.object({
  name: requiredText("Введите название базы", 200),
  mappings: jsonMappings,
  /** Whether the first row is a header to skip; by default detected as in the preview. */
  hasHeader: z
    .union([z.boolean(), z.enum(["true", "false", "1", "0", "on", ""])])
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v === true || v === "true" || v === "1" || v === "on")),
});

export interface DuplicatesInfo {
  baseName: string;
  count: number;
}

export interface ImportResult {
  success: true;
  message: string;
  id: number;
  name: string;
  /** Contacts written. */
  imported: number;
  /** Rows with neither a phone nor a full name. */
  skipped: number;
  /** Removed duplicates: inside the file (under the new base's name) and per other base. */
  duplicatesInfo: DuplicatesInfo[];
}

type ContactRow = typeof contacts.$inferInsert;

const TEXT_COLUMNS = [
  "name",
  "phone",
  "phoneKey",
  "city",
  "address",
  "age",
  "additionalInfo1",
  "additionalInfo2",
  "additionalInfo3",
  "additionalInfo4",
] as const;

/** One multi-row insert with one array parameter per column (unnest): cheap to build, parse and send. */
async function insertContacts(tx: Db, databaseId: number, rows: ContactRow[]) {
  const columns = TEXT_COLUMNS.map((column) => sql.param(rows.map((row) => row[column] ?? "")));
  await tx.execute(sql`
    insert into contacts (database_id, name, phone, phone_key, city, address, age,
                          additional_info1, additional_info2, additional_info3, additional_info4)
    select ${databaseId}, * from unnest(${columns[0]}::text[], ${columns[1]}::text[], ${columns[2]}::text[],
      ${columns[3]}::text[], ${columns[4]}::text[], ${columns[5]}::text[], ${columns[6]}::text[], ${columns[7]}::text[],
      ${columns[8]}::text[], ${columns[9]}::text[])`);
}

/**
 * Imports a file as a new base, in one transaction (the base is complete or absent). Columns map to Lead fields
 * (unmapped ones are dropped); rows with neither phone nor full name are skipped; the dedup settings decide
 * whether repeats inside the file and phones already in other bases are dropped.
 */
export async function importBase(
  db: Db,
  actor: Actor,
  input: { name?: unknown; mappings?: unknown; hasHeader?: unknown; file?: UploadedFile | null },
  options: { phoneRegion: string },
): Promise<ImportResult> {
  requireAdmin(actor);
  const { name, mappings, hasHeader: givenHeader } = parseInput(importInputSchema, {
    name: input.name,
    mappings: input.mappings,
    hasHeader: input.hasHeader,
  });
  if (!input.file) throw fileRequired();
  const filePath = input.file.path;

  // One read of the file. Its first rows come before the transaction (the workbook's parts are read by then, and
  // an embedded database is not held while they are), and without a given answer decide whether the first row
  // is a header.
  const rows = readSheetRows(filePath)[Symbol.asyncIterator]();
  try {
    const head: SheetRow[] = [];
    while (head.length < HEAD_ROWS) {
      const next = await rows.next();
      if (next.done) break;
      head.push(next.value);
    }
    if (head.length === 0) throw badRequest(MESSAGES.empty, "empty_file");
    let hasHeader = givenHeader;
    if (hasHeader === undefined) {
      const cells = head.map((row) => row.cells);
      hasHeader = suggestMapping(cells, Math.max(...cells.map((r) => r.length))).hasHeader;
    }
    async function* all() {
      yield* head;
      for (let next = await rows.next(); !next.done; next = await rows.next()) yield next.value;
    }
    return await importRows(db, all(), { name, mappings, hasHeader, phoneRegion: options.phoneRegion });
  } finally {
    // Ends the reading worker when the import stops early.
    await rows.return?.(undefined);
  }
}

/** The import proper, in one transaction, over the file's rows. */
async function importRows(
  db: Db,
  sheet: AsyncIterable<SheetRow>,
  input: { name: string; mappings: MappingField[]; hasHeader: boolean; phoneRegion: string },
): Promise<ImportResult> {
  const { name, mappings, hasHeader } = input;
  const [rules] = await db.select().from(settings).where(eq(settings.id, 1));
  const inBase = rules?.removeDuplicatesInBase ?? true;
  const acrossBases = rules?.removeDuplicatesAcrossBases ?? false;

  const columns = mappings
    .map((field, index) => ({ field, index }))
    .filter((c): c is { field: Exclude<MappingField, "skip">; index: number } => c.field !== "skip");

  return db.transaction(async (tx) => {
    const [same] = await tx.select({ id: databases.id }).from(databases).where(eq(databases.name, name)).limit(1);
    if (same) throw conflict("База с таким названием уже есть: выберите другое название", "base_name_taken");
    const [base] = await tx.insert(databases).values({ name }).returning({ id: databases.id });

    const seen = new Set<string>();
    const acrossCounts = new Map<number, number>();
    let inFile = 0;
    let skipped = 0;
    let imported = 0;
    let rowsRead = 0;
    let batch: ContactRow[] = [];
    let batchChars = 0;
    let totalChars = 0;

    // Writing a batch overlaps reading the next one (the database works while the file is parsed); at most one
    // write is in flight, and its failure surfaces at the next flush or at the end. Order does not matter: the
    // cross-base lookup never looks at the new base, and in-file repeats are caught in memory.
    let inFlight: Promise<void> = Promise.resolve();
    const flush = async () => {
      await inFlight;
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      batchChars = 0;
      inFlight = awaitedLater(writeBatch(rows));
    };
    const writeBatch = async (batchRows: ContactRow[]) => {
      let rows = batchRows;
      if (acrossBases) {
        const keys = [...new Set(rows.map((r) => r.phoneKey).filter((k): k is string => Boolean(k)))];
        if (keys.length) {
          // One array parameter, served by contacts_phone_key_idx.
          const found = await queryRows<{ key: string; base_id: number }>(
            tx,
            sql`select phone_key as key, min(database_id) as base_id from contacts
                where phone_key = any(${sql.param(keys)}::text[]) and database_id <> ${base.id}
                group by phone_key`,
          ).then((list) => list.map((f) => ({ key: f.key, baseId: Number(f.base_id) })));
          if (found.length) {
            const owner = new Map(found.map((f) => [f.key, f.baseId]));
            rows = rows.filter((r) => {
              const baseId = r.phoneKey ? owner.get(r.phoneKey) : undefined;
              if (baseId === undefined) return true;
              acrossCounts.set(baseId, (acrossCounts.get(baseId) ?? 0) + 1);
              return false;
            });
          }
        }
      }
      if (rows.length) await insertContacts(tx, base.id, rows);
      imported += rows.length;
    };

    try {
      for await (const { number, cells } of sheet) {
        rowsRead++;
        if (rowsRead === 1 && hasHeader) continue;
        const row: ContactRow = { databaseId: base.id };
        let chars = 0;
        for (const { field, index } of columns) {
          const value = cells[index] ?? "";
          if (value.length > IMPORT_LIMITS.maxCellChars) throw cellTooLong(number, index, value.length);
          chars += value.length;
          row[field] = value;
        }
        if (!row.name && !row.phone) {
          skipped++;
          continue;
        }
        totalChars += chars;
        if (totalChars > IMPORT_LIMITS.maxTotalChars) throw tooMuchText(number);
        batchChars += chars;
        row.phoneKey = row.phone ? phoneKey(row.phone, input.phoneRegion) : "";
        if (inBase && row.phoneKey) {
          if (seen.has(row.phoneKey)) {
            inFile++;
            continue;
          }
          seen.add(row.phoneKey);
        }
        batch.push(row);
        if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
      }
      await flush();
      await inFlight;
    } catch (error) {
      // Let a write still in flight finish before the transaction rolls back.
      await inFlight.catch(() => {});
      throw error;
    }
    if (rowsRead === 0) throw badRequest(MESSAGES.empty, "empty_file");
    const removed = inFile + [...acrossCounts.values()].reduce((a, b) => a + b, 0);
    if (imported + removed === 0) throw badRequest("В файле нет ни одного контакта с телефоном или ФИО: база не создана", "nothing_to_import");
    // Every contact was a duplicate: an empty base helps nobody, so nothing is created (issue 17); a warning, not a
    // success. The transaction rolls back the base row written above.
    if (imported === 0) throw conflict(onlyDuplicates(removed), ONLY_DUPLICATES);

    await tx.update(databases).set({ contactsCount: imported }).where(eq(databases.id, base.id));

    const duplicatesInfo: DuplicatesInfo[] = [];
    if (inFile) duplicatesInfo.push({ baseName: name, count: inFile });
    if (acrossCounts.size) {
      const ids = [...acrossCounts.keys()];
      const names = await tx.select({ id: databases.id, name: databases.name }).from(databases).where(inArray(databases.id, ids));
      for (const other of names.sort((a, b) => a.id - b.id)) {
        duplicatesInfo.push({ baseName: other.name, count: acrossCounts.get(other.id) ?? 0 });
      }
    }
    return { success: true, message: IMPORT_SUCCESS, id: base.id, name, imported, skipped, duplicatesInfo };
  });
}

export { MAPPING_FIELDS };
