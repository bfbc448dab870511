import { and, eq, inArray, isNotNull, or, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { contacts, databases, settings } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict } from "../errors";
import { awaitedLater } from "../later";
import { parseInput } from "../validation";
import { baseNameSchema } from "../../../common/schemas/imports";
import {
  columnLetter,
  CONSENT_FIELD,
  MAPPING_FIELDS,
  type MappingField,
  mappingsSchema,
  NO_PHONE_COLUMN,
  suggestMapping,
  ZONE_FIELD,
} from "./mapping";
import { readConsentCell } from "./consent-cell";
import { looksLikePhone, phoneKey } from "./phone";
import { zoneOfPhone } from "./phone-zone";
import { zoneCellReader } from "./zone-cell";
import { MESSAGES, readRows, type SheetChoice, type SheetRow } from "../spreadsheets";
import { fileRequired } from "./uploads";
import { removeImport } from "./import-cleanup";
import { inVisibleBase, staleImport } from "./visible";
import { enqueueEvent } from "../webhooks/queue";

/** Rows shown in the mapping preview. */
export const PREVIEW_ROWS = 10;
/**
 * Contacts per insert (and per cross-base duplicate lookup)... A batch's rows live until its write is done: at
 * 5000 they outlived two young-generation collections and were promoted, so the old generation grew by most of
 * the file until a full collection (decision 045: 30 MB more peak RSS than at 2000, no faster).
 */
const BATCH = 2000;
/** ...or fewer, when their text reaches this many characters (memory stays bounded whatever the cells hold). */
const BATCH_CHARS = 1_600_000;
/**
 * How long an import lets other requests go first before each batch, at most (decision 046): on the embedded
 * database a batch holds the one connection, and a press's queries would each wait behind one.
 */
const YIELD_MS = 250;
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

/** How many cells are named in a message about formulas without a value, before «и ещё…». */
const NAMED_CELLS = 5;
/** Cells (the first few, then how many more) as a message names them: «C2, C3, D7 и ещё 12». */
function cellList(cells: string[], count: number): string {
  const more = count - cells.length;
  return `${cells.join(", ")}${more > 0 ? ` и ещё ${digits(more)}` : ""}`;
}
const ACT_ON_FORMULAS = "Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова";
/**
 * Formula cells whose value the file does not hold (or holds a value LibreOffice does not trust): Excel and
 * LibreOffice compute them on opening the file, the import cannot (decision 043). The preview warns; the import
 * refuses when such a cell is in a column that would be imported.
 */
export const formulasWarning = (count: number, cells: string[]) =>
  `В показанных строках ${formulaCount(count)} без сохранённого значения (${cellList(cells, count)}): Excel и LibreOffice вычисляют их при открытии файла, а импорт взял бы пустые или устаревшие значения. ${ACT_ON_FORMULAS}`;
/**
 * The refusal when such cells would be imported: `where` names the cells' place («В импортируемых столбцах»),
 * `outcome` what was left as it was («База не создана.»). A base and the do-not-call list refuse alike.
 */
export const formulasRefused = (count: number, cells: string[], where: string, outcome: string) =>
  badRequest(
    `${where} ${formulaCount(count)} без сохранённого значения (${cellList(cells, count)}): Excel и LibreOffice вычисляют их при открытии файла, а импорт получил бы пустые или устаревшие значения. ${outcome} ${ACT_ON_FORMULAS}`,
    "formulas_without_values",
  );
/** Formula cells without a value met while reading a file: how many, and the first few by name. */
export class FormulaCells {
  count = 0;
  readonly named: string[] = [];
  add(column: number, row: number) {
    this.count++;
    if (this.named.length < NAMED_CELLS) this.named.push(`${columnLetter(column)}${row}`);
  }
}
function formulaCount(n: number): string {
  const mod10 = n % 10;
  const mod100 = n % 100;
  const word = mod10 === 1 && mod100 !== 11 ? "формула" : mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14) ? "формулы" : "формул";
  return `${digits(n)} ${word}`;
}

export const IMPORT_SUCCESS = "База данных успешно импортирована";
/** The code of the answer when every contact of the file was a duplicate (the page shows it as a warning). */
export const ONLY_DUPLICATES = "only_duplicates";
const onlyDuplicates = (removed: number) => `Ничего не импортировано: все контакты файла (${removed}) — дубли. База не создана`;
const onlyLeftOut = (duplicates: number, doNotCall: number) =>
  `Ничего не импортировано: все контакты файла — ${duplicates ? `дубли (${duplicates}) или ` : ""}номера из списка «Не звонить» (${doNotCall}). База не создана`;
export const IMPORT_FAILURE = "Произошла ошибка при импорте базы данных";
/** The base was removed while the import wrote it (by an admin, or by the sweeper after a long stop). */
const baseRemoved = () => conflict("Импорт остановлен: базу удалили, пока она загружалась. Загрузите файл снова", "import_base_removed");
/** The client went away (a closed tab, a cut connection) before the import ended: nothing is created. */
const clientGone = () => badRequest("Импорт прерван: соединение закрыто до конца импорта. База не создана", "import_cancelled");
/** The column mapped to phones holds none (a column of notes chosen as «Номер»): nobody could be called. */
const noPhonesInColumn = () =>
  badRequest("В столбце, выбранном как «Номер», нет ни одного номера телефона: база не создана. Выберите столбец с телефонами", "no_phones");
const BASE_NAME_TAKEN = "База с таким названием уже есть: выберите другое название";

export interface UploadedFile {
  /** The uploaded file on disk (the adapter streams it there and removes it afterwards). */
  path: string;
  /** Its name as uploaded: a text file is read as CSV when named .csv, .tsv or .txt. */
  name?: string;
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
  /** The sheet shown (1 = the first in tab order): the import reads the same one. */
  sheet: number;
  /** Every sheet's name, in tab order. */
  sheets: string[];
  /** Said when the first sheet is empty and another one is shown instead. */
  notice?: string;
  /** Said when shown cells are formulas whose value the file does not hold (decision 043). */
  formulas?: string;
  hasHeader: boolean;
  columns: PreviewColumn[];
  /** The first data rows (after the header row, if any), every cell as text. */
  rows: string[][];
}

/** The sheet to read: a number from 1, or nothing (the first sheet, or the first with data when it is empty). */
const sheetSchema = z
  .union([z.number(), z.string()])
  .optional()
  .transform((value, context) => {
    if (value === undefined || value === "") return undefined;
    const sheet = Number(value);
    if (!Number.isInteger(sheet) || sheet < 1 || sheet > 100_000) {
      context.addIssue({ code: "custom", message: "Номер листа: целое число от 1" });
      return z.NEVER;
    }
    return sheet;
  });

/** A sheet's name as shown: the name, or its number when the file gives none. */
const sheetLabel = (names: string[], index: number) => names[index] || `Лист ${index + 1}`;

/** The first rows of a file's sheet and a suggested mapping of its columns (nothing is written). */
export async function previewBase(_db: Db, actor: Actor, input: { file?: UploadedFile | null; sheet?: unknown }): Promise<Preview> {
  requireAdmin(actor);
  const sheet = parseInput(z.object({ sheet: sheetSchema }), { sheet: input.sheet }).sheet;
  if (!input.file) throw fileRequired();
  const head: string[][] = [];
  let choice: SheetChoice = { index: 0 };
  const computed: string[] = [];
  for await (const row of readRows(
    input.file.path,
    { limit: PREVIEW_ROWS + 1, sheet, listSheets: true, name: input.file.name },
    (c) => (choice = c),
  )) {
    head.push(row.cells);
    for (const column of row.computed ?? []) computed.push(`${columnLetter(column)}${row.number}`);
  }
  const names = choice.names ?? [];
  const sheets = names.map((_, i) => sheetLabel(names, i));
  if (head.length === 0) {
    if (sheet !== undefined) throw badRequest(`Лист «${sheetLabel(names, sheet - 1)}» пустой: выберите другой лист`, "empty_sheet");
    throw badRequest(names.length > 1 ? MESSAGES.allEmpty : MESSAGES.empty, "empty_file");
  }
  const notice =
    sheet === undefined && choice.index > 0
      ? `Первый лист «${sheets[0]}» пустой, поэтому показан лист «${sheets[choice.index]}». Другой лист можно выбрать в списке «Лист»`
      : undefined;
  const columnCount = Math.max(...head.map((row) => row.length));
  const { hasHeader, mapping } = suggestMapping(head, columnCount);
  // No column is headed as phones nor holds them: notes, a list of names, a text read as CSV (issue 31).
  if (!mapping.includes("phone")) throw badRequest(NO_PHONE_COLUMN, "no_phone_column");
  const header = hasHeader ? head[0] : [];
  return {
    sheet: choice.index + 1,
    sheets,
    ...(notice ? { notice } : {}),
    ...(computed.length ? { formulas: formulasWarning(computed.length, computed.slice(0, NAMED_CELLS)) } : {}),
    hasHeader,
    columns: mapping.map((suggested, index) => ({
      index,
      letter: columnLetter(index),
      header: header[index] ?? "",
      suggested,
    })),
    rows: (hasHeader ? head.slice(1) : head.slice(0, PREVIEW_ROWS)).map((row) => Array.from({ length: columnCount }, (_, i) => row[i] ?? "")),
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
  name: baseNameSchema,
  mappings: jsonMappings,
  /** Whether the first row is a header to skip; by default detected as in the preview. */
  hasHeader: z
    .union([z.boolean(), z.enum(["true", "false", "1", "0", "on", ""])])
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v === true || v === "true" || v === "1" || v === "on")),
  /** The sheet to import (1 = the first); by default the one the preview shows. */
  sheet: sheetSchema,
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
  /** Contacts left out because their number is on the do-not-call list. */
  doNotCall: number;
  /** Contacts whose «Часовой пояс» cell was filled but not read as a zone: theirs comes from the phone (decision 062). */
  unreadableZones: number;
  /** Contacts whose «Согласие на звонки» cell was filled but read as neither a date nor yes/no: no consent (issue 43). */
  unreadableConsents: number;
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
  "tz",
  "consentAt",
] as const;

/** What one batch's write left out: do-not-call rows, and rows whose phone another base holds (per that base). */
interface BatchOutcome {
  written: number;
  doNotCall: number;
  owners: Array<{ baseId: number; count: number }>;
}

/**
 * One batch's write, set-based in one statement and one round trip: the rows travel as one array parameter per
 * column (unnest, in file order); rows whose phone key is on the do-not-call list are left out (served by
 * do_not_call_phone_key_idx); with `acrossBases`, so are rows whose key another base holds, each counted under
 * the lowest such base (served by contacts_phone_key_idx); the rest are inserted in file order (the claim hands
 * contacts out in id order). Rows without a phone key are never left out. The counts come back per kind:
 * base_id 0 for the rows written, -1 for the do-not-call ones, a base's id for the rows it held.
 */
async function writeContacts(tx: Db, databaseId: number, rows: ContactRow[], acrossBases: boolean): Promise<BatchOutcome> {
  const columns = TEXT_COLUMNS.map((column) =>
    sql.param(rows.map((row) => (column === "consentAt" ? (row.consentAt instanceof Date ? row.consentAt.toISOString() : "") : (row[column] ?? "")))),
  );
  const owners = acrossBases
    ? sql`select c.phone_key, min(c.database_id) as base_id from contacts c
          where c.phone_key in (select phone_key from batch where phone_key <> '' except select phone_key from listed)
            and c.database_id <> ${databaseId} and ${inVisibleBase("c")}
          group by c.phone_key`
    : sql`select null::text as phone_key, null::integer as base_id where false`;
  const counts = await selectRows(
    tx,
    // The first branch names the union's columns.
    { base_id: sql<number | string>`0`, n: sql<number | string>`(select count(*) from written)` },
    (list) => sql`
    with batch as (
      select * from unnest(${columns[0]}::text[], ${columns[1]}::text[], ${columns[2]}::text[], ${columns[3]}::text[],
        ${columns[4]}::text[], ${columns[5]}::text[], ${columns[6]}::text[], ${columns[7]}::text[], ${columns[8]}::text[],
        ${columns[9]}::text[], ${columns[10]}::text[], ${columns[11]}::text[]) with ordinality
        as b(name, phone, phone_key, city, address, age, info1, info2, info3, info4, tz, consent_at, n)
    ),
    listed as (
      select d.phone_key from do_not_call d where d.phone_key in (select phone_key from batch where phone_key <> '')
    ),
    owners as (${owners}),
    written as (
      insert into contacts (database_id, name, phone, phone_key, city, address, age,
                            additional_info1, additional_info2, additional_info3, additional_info4, tz, consent_at)
      select ${databaseId}, name, phone, phone_key, city, address, age, info1, info2, info3, info4, nullif(tz, ''),
        nullif(consent_at, '')::timestamptz from batch b
      where b.phone_key not in (select phone_key from listed)
        and not exists (select 1 from owners o where o.phone_key = b.phone_key)
      order by b.n
      returning 1
    )
    select ${list}
    union all
    select -1, count(*) from batch b where b.phone_key in (select phone_key from listed)
    union all
    select o.base_id, count(*) from batch b join owners o on o.phone_key = b.phone_key group by o.base_id`,
  );
  const outcome: BatchOutcome = { written: 0, doNotCall: 0, owners: [] };
  for (const row of counts) {
    const baseId = Number(row.base_id);
    const n = Number(row.n);
    if (baseId === 0) outcome.written = n;
    else if (baseId === -1) outcome.doNotCall = n;
    else outcome.owners.push({ baseId, count: n });
  }
  return outcome;
}

/** How an import runs, beside what it imports. */
export interface ImportOptions {
  phoneRegion: string;
  /** The client's request: once it is gone, the import stops and leaves nothing (400 import_cancelled). */
  signal?: AbortSignal;
  /** Whether other requests are under way: the import then waits for them before a batch, up to YIELD_MS. */
  othersBusy?: () => boolean;
  /** Hears the data rows read and written so far, after each batch (the page's count: import-progress.ts). */
  onProgress?: (rows: number) => void;
}

/**
 * Imports a file as a new base, all or nothing: the base is written hidden in short transactions and revealed
 * complete in the last one, or removed (decision 046). Columns map to Lead fields
 * (unmapped ones are dropped); rows with neither phone nor full name are skipped; numbers on the do-not-call list
 * are left out and counted; the dedup settings decide whether repeats inside the file and phones already in other
 * bases are dropped.
 */
export async function importBase(
  db: Db,
  actor: Actor,
  input: { name?: unknown; mappings?: unknown; hasHeader?: unknown; sheet?: unknown; file?: UploadedFile | null },
  options: ImportOptions,
): Promise<ImportResult> {
  requireAdmin(actor);
  const {
    name,
    mappings,
    hasHeader: givenHeader,
    sheet,
  } = parseInput(importInputSchema, {
    name: input.name,
    mappings: input.mappings,
    hasHeader: input.hasHeader,
    sheet: input.sheet,
  });
  if (!input.file) throw fileRequired();
  const filePath = input.file.path;

  // One read of the file. Its first rows come before the base is created (the workbook's parts are read by then),
  // and without a given answer decide whether the first row is a header.
  const rows = readRows(filePath, { sheet, name: input.file.name })[Symbol.asyncIterator]();
  try {
    const head: SheetRow[] = [];
    while (head.length < HEAD_ROWS) {
      const next = await rows.next();
      if (next.done) break;
      head.push(next.value);
    }
    if (head.length === 0) {
      if (sheet !== undefined) throw badRequest(`Лист ${sheet} пустой: выберите другой лист`, "empty_sheet");
      throw badRequest(MESSAGES.empty, "empty_file");
    }
    let hasHeader = givenHeader;
    if (hasHeader === undefined) {
      const cells = head.map((row) => row.cells);
      hasHeader = suggestMapping(cells, Math.max(...cells.map((r) => r.length))).hasHeader;
    }
    async function* all() {
      yield* head;
      for (let next = await rows.next(); !next.done; next = await rows.next()) yield next.value;
    }
    return await importRows(db, all(), { name, mappings, hasHeader, by: { id: actor.id, login: actor.login }, ...options });
  } finally {
    // Ends the reading worker when the import stops early.
    await rows.return?.(undefined);
  }
}

/** A foreign key violation: the contacts' trigger found no base row (decision 017). */
function isMissingBase(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | null; e && typeof e === "object"; e = e.cause as typeof e) {
    if (e.code === "23503") return true;
  }
  return false;
}

/**
 * The new base, marked as being imported (invisible to everyone, decision 046), in a short transaction of its own.
 * Its name is taken from now on: a visible base's or one being imported holds it (an abandoned import's does not:
 * it is never revealed). The lock keeps two imports of one name on Postgres from both passing the check.
 */
async function createHiddenBase(db: Db, name: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('databases.name'))`);
    const [same] = await tx
      .select({ id: databases.id })
      .from(databases)
      .where(and(eq(databases.name, name), or(isNull(databases.importingSince), sql`not ${staleImport("databases")}`)))
      .limit(1);
    if (same) throw conflict(BASE_NAME_TAKEN, "base_name_taken");
    const [base] = await tx
      .insert(databases)
      .values({ name, importingSince: sql`now()` })
      .returning({ id: databases.id });
    return base.id;
  });
}

/**
 * Touches the mark of the base being imported, in a batch's transaction; refuses when the base is gone or was
 * claimed as abandoned. On Postgres the row stays locked until the batch commits, so the base cannot be removed
 * under the batch's insert.
 */
async function touchImport(tx: Db, baseId: number) {
  const touched = await selectRows(
    tx,
    { id: sql<number>`d.id` },
    (list) => sql`update databases d set importing_since = now()
        where d.id = ${baseId} and d.importing_since is not null and not ${staleImport("d")}
        returning ${list}`,
  );
  if (touched.length === 0) throw baseRemoved();
}

/**
 * The import proper, over the file's rows (decision 046): the base is created hidden, each batch is written in a
 * short transaction of its own (other requests run between two), and the last transaction reveals the base with
 * its counts. On any failure the base and its contacts are removed in chunks; nothing was visible meanwhile.
 */
async function importRows(
  db: Db,
  sheet: AsyncIterable<SheetRow>,
  input: ImportOptions & { name: string; mappings: MappingField[]; hasHeader: boolean; by: { id: number; login: string } },
): Promise<ImportResult> {
  const { name, mappings, hasHeader } = input;
  const [rules] = await db.select().from(settings).where(eq(settings.id, 1));
  const inBase = rules?.removeDuplicatesInBase ?? true;
  const acrossBases = rules?.removeDuplicatesAcrossBases ?? false;

  const columns = mappings
    .map((field, index) => ({ field, index }))
    .filter(
      (c): c is { field: Exclude<MappingField, "skip" | typeof ZONE_FIELD | typeof CONSENT_FIELD>; index: number } =>
        c.field !== "skip" && c.field !== ZONE_FIELD && c.field !== CONSENT_FIELD,
    );
  const consentColumn = mappings.indexOf(CONSENT_FIELD);
  const importedAt = new Date();
  const zoneColumn = mappings.indexOf(ZONE_FIELD);
  const readZone = zoneColumn >= 0 ? await zoneCellReader(db) : null;

  const baseId = await createHiddenBase(db, name);
  const base = { id: baseId };
  try {
    const seen = new Set<string>();
    const acrossCounts = new Map<number, number>();
    let inFile = 0;
    let doNotCall = 0;
    let skipped = 0;
    let imported = 0;
    let withPhone = 0;
    let unreadableZones = 0;
    let unreadableConsents = 0;
    let rowsRead = 0;
    let batch: ContactRow[] = [];
    let batchChars = 0;
    let totalChars = 0;
    // Imported cells that are formulas without a value: the import is refused, naming the first few.
    const formulas = new FormulaCells();
    // The header's names of the columns mapped to Доп. поле 1-4: the client card's labels for them.
    const extraLabels = ["", "", "", ""];
    // The header of every mapped column, by the field it became: a card field named as one starts with its value.
    const columnHeaders: Record<string, string> = {};

    // Writing a batch overlaps reading the next one (the database works while the file is parsed); at most one
    // write is in flight, and its failure surfaces at the next flush or at the end. Order does not matter: the
    // cross-base lookup never looks at the new base, and in-file repeats are caught in memory.
    let inFlight: Promise<void> = Promise.resolve();
    const flush = async () => {
      await inFlight;
      if (batch.length === 0) return;
      const rows = batch;
      const dataRowsRead = rowsRead - (hasHeader ? 1 : 0);
      batch = [];
      batchChars = 0;
      inFlight = awaitedLater(writeBatch(rows).then(() => input.onProgress?.(dataRowsRead)));
    };
    const writeBatch = async (rows: ContactRow[]) => {
      // PGlite runs in this thread and answers in microtasks: without a turn of the event loop here, requests that
      // came meanwhile (a press) would not even be read until the import ends. After it, their queries are queued
      // ahead of this batch's transaction.
      await new Promise((resolve) => setImmediate(resolve));
      for (const until = performance.now() + YIELD_MS; input.othersBusy?.() && performance.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (input.signal?.aborted) throw clientGone();
      const outcome = await db
        .transaction(async (tx) => {
          await touchImport(tx, base.id);
          return writeContacts(tx, base.id, rows, acrossBases);
        })
        .catch((error: unknown) => {
          throw isMissingBase(error) ? baseRemoved() : error;
        });
      doNotCall += outcome.doNotCall;
      for (const { baseId, count } of outcome.owners) acrossCounts.set(baseId, (acrossCounts.get(baseId) ?? 0) + count);
      imported += outcome.written;
    };

    try {
      for await (const { number, cells, computed } of sheet) {
        rowsRead++;
        if (computed && !(rowsRead === 1 && hasHeader)) {
          for (const column of computed) {
            if (mappings[column] === undefined || mappings[column] === "skip") continue;
            formulas.add(column, number);
          }
        }
        if (rowsRead === 1 && hasHeader) {
          for (const { field, index } of columns) {
            const n = /^additionalInfo([1-4])$/.exec(field)?.[1];
            const header = (cells[index] ?? "").trim().slice(0, 200);
            if (n) extraLabels[Number(n) - 1] = header;
            if (header) columnHeaders[field] = header;
          }
          continue;
        }
        const row: ContactRow = { databaseId: base.id };
        let chars = 0;
        for (const { field, index } of columns) {
          const value = cells[index] ?? "";
          if (value.length > IMPORT_LIMITS.maxCellChars) throw cellTooLong(number, index, value.length);
          chars += value.length;
          row[field] = value;
        }
        const zoneCell = readZone ? (cells[zoneColumn] ?? "").trim() : "";
        const consentCell = consentColumn >= 0 ? (cells[consentColumn] ?? "").trim() : "";
        if (consentCell.length > IMPORT_LIMITS.maxCellChars) throw cellTooLong(number, consentColumn, consentCell.length);
        if (zoneCell.length > IMPORT_LIMITS.maxCellChars) throw cellTooLong(number, zoneColumn, zoneCell.length);
        if (!row.name && !row.phone) {
          skipped++;
          continue;
        }
        totalChars += chars;
        if (totalChars > IMPORT_LIMITS.maxTotalChars) throw tooMuchText(number);
        batchChars += chars;
        row.phoneKey = row.phone ? phoneKey(row.phone, input.phoneRegion) : "";
        // The client's time zone for the calling hours, once per contact: the file's own when it names one it reads
        // (decision 062), else the phone's (decision 050).
        const givenZone = zoneCell && readZone ? readZone(zoneCell) : null;
        row.tz = givenZone ?? (row.phone ? zoneOfPhone(row.phone, input.phoneRegion, row.phoneKey) : null);
        if (row.phone && looksLikePhone(row.phone.trim())) withPhone++;
        if (inBase && row.phoneKey) {
          if (seen.has(row.phoneKey)) {
            inFile++;
            continue;
          }
          seen.add(row.phoneKey);
        }
        if (zoneCell && !givenZone) unreadableZones++;
        // «Согласие на звонки» (issue 43): a date, or yes (since this import) / no; unreadable is no consent.
        const consent = readConsentCell(consentCell, importedAt);
        row.consentAt = consent.readable ? consent.since : null;
        if (!consent.readable) unreadableConsents++;
        batch.push(row);
        if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
      }
      await flush();
      await inFlight;
    } catch (error) {
      // Let a write still in flight finish before the base is removed.
      await inFlight.catch(() => {});
      throw error;
    }
    if (rowsRead === 0) throw badRequest(MESSAGES.empty, "empty_file");
    if (formulas.count > 0) throw formulasRefused(formulas.count, formulas.named, "В импортируемых столбцах", "База не создана.");
    const removed = inFile + [...acrossCounts.values()].reduce((a, b) => a + b, 0);
    if (imported === 0 && doNotCall > 0) throw conflict(onlyLeftOut(removed, doNotCall), ONLY_DUPLICATES);
    if (imported + removed === 0) throw badRequest("В файле нет ни одного контакта с телефоном или ФИО: база не создана", "nothing_to_import");
    if (withPhone === 0) throw noPhonesInColumn();
    // Every contact was a duplicate: an empty base helps nobody, so nothing is created (issue 17); a warning, not a
    // success. The base written above is removed below.
    if (imported === 0) throw conflict(onlyDuplicates(removed), ONLY_DUPLICATES);

    if (input.signal?.aborted) throw clientGone();
    // The reveal: the base, its contacts and its counts appear at once, in this one short transaction.
    return await db.transaction(async (tx) => {
      const revealed = await tx
        .update(databases)
        .set({ contactsCount: imported, extraLabels, columnHeaders, importingSince: null })
        .where(and(eq(databases.id, base.id), isNotNull(databases.importingSince), sql`not ${staleImport("databases")}`))
        .returning({ id: databases.id });
      if (revealed.length === 0) throw baseRemoved();

      const duplicatesInfo: DuplicatesInfo[] = [];
      if (inFile) duplicatesInfo.push({ baseName: name, count: inFile });
      if (acrossCounts.size) {
        const ids = [...acrossCounts.keys()];
        const names = await tx.select({ id: databases.id, name: databases.name }).from(databases).where(inArray(databases.id, ids));
        for (const other of names.sort((a, b) => a.id - b.id)) {
          duplicatesInfo.push({ baseName: other.name, count: acrossCounts.get(other.id) ?? 0 });
        }
      }
      const result: ImportResult = {
        success: true,
        message: IMPORT_SUCCESS,
        id: base.id,
        name,
        imported,
        skipped,
        duplicatesInfo,
        doNotCall,
        unreadableZones,
        unreadableConsents,
      };
      // Webhooks (issue 44): `base.imported`, in the reveal's transaction.
      await enqueueEvent(tx as unknown as Db, "base.imported", {
        baseId: base.id,
        name,
        imported,
        skipped,
        doNotCall,
        duplicates: duplicatesInfo,
        by: input.by,
      });
      return result;
    });
  } catch (error) {
    // Nothing of it was ever visible; its rows go in short chunks. Should this fail too (the database gone), the
    // base stays marked and the import sweeper removes it later: the import's own error is the answer.
    await removeImport(db, base.id).catch(() => {});
    throw error;
  }
}

export { MAPPING_FIELDS };
