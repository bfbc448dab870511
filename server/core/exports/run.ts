import os from "node:os";
import { PassThrough } from "node:stream";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { queryRows } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { CONTACT_FIELDS } from "../bases/contact-fields";
import { exports } from "../../../db/schema";
import { BUSINESS_TIME_ZONE } from "../../../common/business-time";
import { awaitedLater } from "../later";
import { extraFieldLabel } from "../bases/mapping";
import { visibleBase } from "../bases/visible";
import { CSV_BOM, csvLine } from "./csv-writer";
import type { ExportFormat } from "./exports";
import { exportSelection } from "./selection";

/** Rows read per query while writing a file. */
const PAGE = 5000;
/** Rows written are recorded at least this often while a job runs (besides each whole percent). */
const REPORT_MS = 500;
/** Bytes of the file gathered before they are stored as one part. */
const PART_BYTES = 1024 * 1024;

export const EXPORT_HEADER = [
  "ФИО",
  "Телефон",
  "Город",
  "Адрес",
  "Возраст",
  extraFieldLabel(1),
  extraFieldLabel(2),
  extraFieldLabel(3),
  extraFieldLabel(4),
  "База",
  "Статус",
  "Менеджер",
  "Дата статуса",
  "Карточка клиента",
];

export interface ClaimedExport {
  id: number;
  name: string;
  databaseIds: number[];
  statusIds: number[];
  format: ExportFormat;
}

/**
 * Takes the oldest export nobody holds (never started, or its worker's lease ran out: a crash) for this worker.
 * SKIP LOCKED: two instances never take the same job.
 */
export async function claimNextExport(db: Db, workerId: string, leaseSeconds: number): Promise<ClaimedExport | null> {
  const rows = await selectRows(
    db,
    {
      id: sql<number>`id`,
      name: sql<string>`name`,
      database_ids: sql<number[]>`database_ids`,
      status_ids: sql<number[]>`status_ids`,
      format: sql<string>`format`,
    },
    (list) => sql`update exports set claimed_by = ${workerId}, claimed_until = now() + make_interval(secs => ${leaseSeconds}),
               progress = 0, rows_written = 0, start_time = now(), end_time = null, updated_at = now()
        where id = (
          select id from exports
          where is_exported = false and error is null and (claimed_until is null or claimed_until < now())
          order by id
          for update skip locked
          limit 1)
        returning ${list}`,
  );
  const row = rows[0];
  if (!row) return null;
  const format: ExportFormat = row.format === "csv" ? "csv" : "xlsx";
  return { id: row.id, name: row.name, databaseIds: row.database_ids, statusIds: row.status_ids, format };
}

/**
 * Worker ids running in this process (started and not stopped). With PGlite only this process can reach the data,
 * so a claim is alive exactly when one of these holds it.
 */
const liveWorkers = new Set<string>();
export const holdWorkerId = (workerId: string) => void liveWorkers.add(workerId);
export const dropWorkerId = (workerId: string) => void liveWorkers.delete(workerId);

/**
 * Takes claims away from workers that are known to be dead, so their jobs start again at once instead of after
 * the lease runs out (a SIGKILL, an out-of-memory kill, a power cut). A worker id is `host:pid:random`; a claim
 * is dead when it was made on this host by a process that no longer exists, or, with `singleProcess` (PGlite:
 * one process per data folder), by any worker not running in this process (holdWorkerId). Claims from other hosts keep their lease.
 * Answers the ids released.
 */
export async function releaseDeadClaims(db: Db, workerId: string, options: { singleProcess: boolean }): Promise<number[]> {
  const claimed = await db
    .select({ id: exports.id, claimedBy: exports.claimedBy })
    .from(exports)
    .where(and(eq(exports.isExported, false), sql`${exports.claimedBy} is not null`, sql`${exports.claimedBy} <> ${workerId}`));
  const released: number[] = [];
  for (const { id, claimedBy } of claimed) {
    if (!claimedBy || !(options.singleProcess ? !liveWorkers.has(claimedBy) : deadOnThisHost(claimedBy))) continue;
    const rows = await db
      .update(exports)
      .set({ claimedBy: null, claimedUntil: null, progress: 0, rowsWritten: 0, updatedAt: new Date() })
      .where(and(eq(exports.id, id), eq(exports.claimedBy, claimedBy), eq(exports.isExported, false)))
      .returning({ id: exports.id });
    if (rows.length) released.push(id);
  }
  return released;
}

function deadOnThisHost(claimedBy: string): boolean {
  const parts = claimedBy.split(":");
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(":");
  if (host !== os.hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** The job was restarted or deleted meanwhile, or its lease went to another worker. */
export class LostExportLease extends Error {}

/** A contact's row of the file: the contact, its base, status and manager. */
const EXPORT_COLUMNS = {
  ...CONTACT_FIELDS,
  base: sql<string>`d.name`,
  status: sql<string | null>`s.text`,
  manager: sql<string | null>`coalesce(nullif(u.display_name, ''), u.login)`,
  client_info: sql<string>`c.client_info`,
  /** dd.mm.yyyy, hh:mm:ss in Kyiv time. */
  status_at: sql<string | null>`to_char(c.status_at at time zone ${BUSINESS_TIME_ZONE}, 'DD.MM.YYYY, HH24:MI:SS')`,
};
type ExportRow = RowOf<typeof EXPORT_COLUMNS>;

/**
 * Stores the file while it is written, in parts of about PART_BYTES with at most one in flight: the database
 * stores one part while exceljs produces the next (decision 018). A part is stored only while this worker holds
 * the job, under FOR SHARE, so a worker taking the job over waits for a part in flight and then clears them all.
 */
export function partStore(db: Db, job: Pick<ClaimedExport, "id">, workerId: string) {
  let chunks: Buffer[] = [];
  let gathered = 0;
  let seq = 0;
  let bytes = 0;
  let storing: Promise<void> | null = null;
  let failure: unknown = null;
  const store = async (data: Buffer, part: number) => {
    const stored = await queryRows(
      db,
      sql`insert into export_parts (export_id, seq, data)
          select id, ${part}, ${data}::bytea from exports where id = ${job.id} and claimed_by = ${workerId} for share
          returning seq`,
    );
    if (stored.length === 0) throw new LostExportLease(`export ${job.id} lost`);
  };
  /** Starts storing what has gathered, once it makes a part (or at the end, whatever there is). */
  const drain = (all: boolean) => {
    if (storing || failure || gathered === 0 || (!all && gathered < PART_BYTES)) return;
    const data = Buffer.concat(chunks);
    chunks = [];
    gathered = 0;
    storing = store(data, seq++).then(
      () => {
        storing = null;
        drain(false);
      },
      (error: unknown) => {
        storing = null;
        failure = error;
      },
    );
  };
  return {
    /** exceljs' output as it comes: stored a part at a time in the background. */
    add(chunk: Buffer) {
      chunks.push(chunk);
      gathered += chunk.length;
      bytes += chunk.length;
      drain(false);
    },
    /** Stores the rest and waits for every part; answers the file's size, or throws what a store threw. */
    async finish(): Promise<number> {
      for (;;) {
        if (failure) throw failure;
        if (storing) await storing;
        else if (gathered === 0) return bytes;
        else drain(true);
      }
    },
  };
}

/**
 * Writes the job's contacts to an .xlsx (exceljs streaming writer) or a .csv (csv-writer.ts), one row per contact (its fields, base, current
 * status, manager, date of the last status and the client card text), reporting progress 0-100 as it goes and
 * renewing its lease; stores the file in parts as it goes (export_parts). Throws LostExportLease if the job was
 * taken away.
 */
export async function runExportJob(db: Db, job: ClaimedExport, workerId: string, leaseSeconds: number, shouldStop: () => boolean) {
  const where = exportSelection(job);
  const counting = awaitedLater(selectRows(db, { n: sql<string | number>`count(*)` }, (list) => sql`select ${list} from contacts c where ${where}`));
  // Parts of an earlier run of this job (a crash, a lost lease) go; none are added while this worker holds it.
  const clearing = awaitedLater(
    db.execute(sql`delete from export_parts p using exports e
                   where p.export_id = ${job.id} and e.id = p.export_id and e.claimed_by = ${workerId}`),
  );
  const parts = partStore(db, job, workerId);
  const file = job.format === "csv" ? csvFile(parts) : await xlsxFile(parts);
  file.add(EXPORT_HEADER);

  const keepLease = async (progress: number, rowsWritten: number, rowsTotal: number) => {
    const held = await db
      .update(exports)
      .set({
        progress,
        rowsWritten,
        rowsTotal,
        claimedUntil: sql`now() + make_interval(secs => ${leaseSeconds})`,
        updatedAt: new Date(),
      })
      .where(and(eq(exports.id, job.id), eq(exports.claimedBy, workerId)))
      .returning({ id: exports.id });
    if (held.length === 0) throw new LostExportLease(`export ${job.id} lost`);
  };

  // The status date is formatted by the database: Intl in Node costs microseconds a row, on the writer's core.
  // Read ahead: a page is awaited only once the one before it is written.
  const page = (after: number) =>
    awaitedLater(
      selectRows(
        db,
        EXPORT_COLUMNS,
        (list) => sql`select ${list}
            from contacts c
            join databases d on d.id = c.database_id and ${visibleBase("d")}
            left join statuses s on s.id = c.status_id
            left join users u on u.id = c.last_user_id
            where ${where} and c.id > ${after}
            order by c.id
            limit ${PAGE}`,
      ),
    );

  // The count, the clearing and the first page go to the database together.
  let next: Promise<ExportRow[]> | null = page(0);
  const [{ n }] = await counting;
  const total = Number(n);
  await clearing;

  let written = 0;
  let reported = 0;
  let reportedAt = Date.now();
  // The lease is renewed while the next page is written; a lost lease stops the job one page later. The first
  // renewal records the count at once, so the page shows "0 of N rows" from the start.
  let leaseRenewal: Promise<void> = awaitedLater(keepLease(0, 0, total));
  while (next) {
    if (shouldStop()) throw new LostExportLease(`export ${job.id} stopped`);
    const rows: ExportRow[] = await next;
    // The database reads the next page while this one is written (keyset paging knows where it starts).
    next = rows.length === PAGE ? page(Number(rows[rows.length - 1].id)) : null;
    for (const r of rows) {
      file.add([
        r.name,
        r.phone,
        r.city,
        r.address,
        r.age,
        r.additional_info1,
        r.additional_info2,
        r.additional_info3,
        r.additional_info4,
        r.base,
        r.status ?? "",
        r.manager ?? "",
        r.status_at ?? "",
        r.client_info,
      ]);
    }
    file.flush();
    written += rows.length;
    const progress = total ? Math.min(99, Math.floor((written / total) * 100)) : 99;
    // Rows written are recorded at each percent and at least every REPORT_MS, so a small job moves too.
    if (progress !== reported || Date.now() - reportedAt >= REPORT_MS || !next) {
      reported = progress;
      reportedAt = Date.now();
      await leaseRenewal;
      leaseRenewal = awaitedLater(keepLease(progress, written, Math.max(total, written)));
    }
  }
  await leaseRenewal;
  await file.end();
  const bytes = await parts.finish();

  const done = await db
    .update(exports)
    .set({
      isExported: true,
      progress: 100,
      rowsWritten: written,
      rowsTotal: written,
      endTime: new Date(),
      claimedBy: null,
      claimedUntil: null,
      updatedAt: new Date(),
    })
    .where(and(eq(exports.id, job.id), eq(exports.claimedBy, workerId)))
    .returning({ id: exports.id });
  if (done.length === 0) throw new LostExportLease(`export ${job.id} lost`);
  return { rows: written, bytes };
}

/** The file of an export as it is written: rows go in, bytes go to the part store. */
interface ExportWriter {
  add(cells: string[]): void;
  /** A page of rows is in: what is gathered may go to the store. */
  flush(): void;
  end(): Promise<void>;
}

/**
 * exceljs' streaming writer: no shared strings and no styles, so each row is written out as it comes. Loaded with
 * the first .xlsx export, not with the app: its code is about 28 MB of the process' memory (decision 047).
 */
async function xlsxFile(parts: ReturnType<typeof partStore>): Promise<ExportWriter> {
  const { default: ExcelJS } = await import("exceljs");
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => parts.add(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet("Экспорт");
  return {
    add: (cells) => sheet.addRow(cells).commit(),
    flush: () => {},
    end: async () => {
      sheet.commit();
      await workbook.commit();
      await finished;
    },
  };
}

/** CSV (csv-writer.ts): a page of rows becomes one string, then one buffer for the part store. */
function csvFile(parts: ReturnType<typeof partStore>): ExportWriter {
  let text = CSV_BOM;
  const flush = () => {
    if (text) parts.add(Buffer.from(text, "utf8"));
    text = "";
  };
  return {
    add: (cells) => {
      text += csvLine(cells);
    },
    flush,
    end: async () => flush(),
  };
}

/** Records a failure so the page shows it; the job waits for a restart. */
export async function failExportJob(db: Db, jobId: number, workerId: string, message: string) {
  await db
    .update(exports)
    .set({ error: message, claimedBy: null, claimedUntil: null, updatedAt: new Date() })
    .where(and(eq(exports.id, jobId), eq(exports.claimedBy, workerId)));
}
