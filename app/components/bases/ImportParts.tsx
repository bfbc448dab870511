import { Link } from "@remix-run/react";
import type { ImportResult, Preview } from "../../../server/core/bases/import";
import { HEAD_BYTES, MAX_UPLOAD_BYTES, uploadRefusal } from "../../../common/upload-kind";
import { DialogOrSection } from "../ui/DialogOrSection";
import { bannerClass } from "../ui/Toasts";

/** The file input's label: the kinds read and the size limit, said before anyone picks a file. */
export const FILE_LABEL = `Файл (.xlsx, .xls, .ods, .csv; до ${MAX_UPLOAD_BYTES / 1024 / 1024} МБ)`;

/**
 * Why the chosen file cannot be imported, told in the browser before its upload starts (the server's own rule,
 * upload-kind.ts, on the file's name, size and first bytes), or null.
 */
export async function fileRefusal(file: File): Promise<string | null> {
  if (file.size > MAX_UPLOAD_BYTES) return uploadRefusal(new Uint8Array(0), file.name, file.size);
  return uploadRefusal(new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()), file.name, file.size);
}

/**
 * The mapping preview: one card per file column (its type choice, letter and header, the first values), wrapping
 * onto as many lines as the screen needs, so no column hides behind a sideways scroll (issue 17).
 */
export function MappingTable({ preview, fields }: { preview: Preview; fields: Array<{ value: string; label: string }> }) {
  return (
    <div className="grid grid-cols-[repeat(auto-fill,minmax(11rem,1fr))] gap-3" data-testid="mapping-table">
      <input type="hidden" name="columns" value={preview.columns.length} />
      <input type="hidden" name="hasHeader" value={preview.hasHeader ? "true" : "false"} />
      {preview.columns.map((column) => {
        const title = `${column.letter}${column.header ? `: ${column.header}` : ""}`;
        return (
          <div
            key={column.index}
            className="min-w-0 rounded-md border border-slate-200 p-2 dark:border-slate-700"
            data-testid={`mapping-column-${column.index}`}
          >
            <label
              className="mb-1 block truncate text-xs font-semibold text-slate-600 dark:text-slate-300"
              htmlFor={`map_${column.index}`}
              title={title}
            >
              <span className="sr-only">Тип столбца </span>
              {title}
            </label>
            <select
              id={`map_${column.index}`}
              name={`map_${column.index}`}
              defaultValue={column.suggested}
              className="input py-1"
              data-testid={`map-${column.index}`}
            >
              {fields.map((field) => (
                <option key={field.value} value={field.value}>
                  {field.label}
                </option>
              ))}
            </select>
            <ul className="mt-2 space-y-0.5 text-xs text-slate-700 dark:text-slate-300" aria-label={`Первые значения столбца ${column.letter}`}>
              {preview.rows.map((row, r) => (
                <li key={r} className="truncate" title={row[column.index] ?? ""}>
                  {row[column.index] || <span className="text-slate-500 dark:text-slate-400">—</span>}
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </div>
  );
}

/** The result dialog: how many contacts came in, rows skipped, and the removed duplicates per base. */
export function ImportResultDialog({ result, onClose }: { result: ImportResult; onClose: () => void }) {
  return (
    <DialogOrSection open title="Результат импорта" onClose={onClose} closeHref="/importbase" testId="import-result">
      <p className="mb-2 font-medium text-green-700 dark:text-green-400">{result.message}</p>
      <ul className="mb-3 space-y-1 text-sm">
        <li>
          База: <b>{result.name}</b>
        </li>
        <li>
          Импортировано контактов: <b data-testid="imported-count">{result.imported}</b>
        </li>
        <li>
          Пропущено строк без телефона и ФИО: <b data-testid="skipped-count">{result.skipped}</b>
        </li>
        <li>
          Не импортировано (номер в списке «Не звонить»): <b data-testid="do-not-call-count">{result.doNotCall}</b>
        </li>
        {result.unreadableZones > 0 ? (
          <li className="text-amber-700 dark:text-amber-400">
            Часовой пояс не распознан, взят по номеру телефона: <b data-testid="unreadable-zones-count">{result.unreadableZones}</b>
          </li>
        ) : null}
        {result.unreadableConsents > 0 ? (
          <li className="text-amber-700 dark:text-amber-400">
            Согласие на звонки не распознано (ни дата, ни «да»/«нет»), считается, что его нет:{" "}
            <b data-testid="unreadable-consents-count">{result.unreadableConsents}</b>
          </li>
        ) : null}
      </ul>
      <h3 className="mb-1 text-sm font-semibold">Удалённые дубли</h3>
      {result.duplicatesInfo.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Дубли не найдены</p>
      ) : (
        <table className="w-full text-sm" data-testid="duplicates">
          <thead>
            <tr className="text-left text-slate-600 dark:text-slate-400">
              <th className="py-1">База</th>
              <th className="py-1">Дублей удалено</th>
            </tr>
          </thead>
          <tbody>
            {result.duplicatesInfo.map((d) => (
              <tr key={d.baseName} className="border-t border-slate-100 dark:border-slate-700">
                <td className="py-1">{d.baseName}</td>
                <td className="py-1">{d.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="mt-4 flex gap-2">
        <Link to="/loadedbases" className="btn-primary">
          К базам
        </Link>
        <a href="/importbase" className="btn-secondary">
          Импортировать ещё
        </a>
      </div>
    </DialogOrSection>
  );
}

/** Upload progress, then an indeterminate bar while the server reads and writes the file. */
export function ImportProgress({ phase, percent, rows }: { phase: "upload" | "processing"; percent: number; rows?: number }) {
  return (
    <div
      className="my-3"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={phase === "upload" ? percent : undefined}
      data-testid="import-progress"
    >
      <div className="mb-1 text-sm text-slate-600 dark:text-slate-300">
        {phase === "upload"
          ? `Загрузка файла: ${percent}%`
          : rows
            ? `Обработка файла... строк: ${rows.toLocaleString("ru-RU")}`
            : "Обработка файла..."}
      </div>
      <div className="h-2 overflow-hidden rounded bg-slate-200 dark:bg-slate-700">
        <div
          className={`h-full bg-blue-600 transition-all ${phase === "processing" ? "w-full animate-pulse" : ""}`}
          style={phase === "upload" ? { width: `${percent}%` } : undefined}
        />
      </div>
    </div>
  );
}

export function Banner({ kind, title, detail }: { kind: "success" | "warning" | "error"; title: string; detail?: string }) {
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`mb-4 ${bannerClass[kind]}`} data-testid="import-banner">
      <div className="font-medium">{title}</div>
      {detail ? <div>{detail}</div> : null}
    </div>
  );
}
