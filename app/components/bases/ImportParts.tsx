import { Link } from "@remix-run/react";
import type { ImportResult, Preview } from "../../../server/core/bases/import";
import { DialogOrSection } from "../ui/DialogOrSection";

/** The mapping preview: a type choice per column above the header and the first rows. */
export function MappingTable({ preview, fields }: { preview: Preview; fields: Array<{ value: string; label: string }> }) {
  return (
    <div className="max-h-[420px] overflow-auto rounded-md border border-slate-200 dark:border-slate-700">
      <input type="hidden" name="columns" value={preview.columns.length} />
      <input type="hidden" name="hasHeader" value={preview.hasHeader ? "true" : "false"} />
      <table className="min-w-full text-sm" data-testid="mapping-table">
        <thead className="sticky top-0 bg-slate-50 dark:bg-slate-900">
          <tr>
            {preview.columns.map((column) => (
              <th key={column.index} className="p-2 text-left align-top font-normal">
                <label className="sr-only" htmlFor={`map_${column.index}`}>
                  Тип столбца {column.letter}
                </label>
                <select
                  id={`map_${column.index}`}
                  name={`map_${column.index}`}
                  defaultValue={column.suggested}
                  className="input min-w-[9rem] py-1"
                  data-testid={`map-${column.index}`}
                >
                  {fields.map((field) => (
                    <option key={field.value} value={field.value}>
                      {field.label}
                    </option>
                  ))}
                </select>
                <div className="mt-1 text-xs font-semibold text-slate-600 dark:text-slate-300">
                  {column.letter}
                  {column.header ? `: ${column.header}` : ""}
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, r) => (
            <tr key={r} className="border-t border-slate-100 dark:border-slate-700">
              {row.map((cell, c) => (
                <td key={c} className="whitespace-nowrap p-2">
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
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
export function ImportProgress({ phase, percent }: { phase: "upload" | "processing"; percent: number }) {
  return (
    <div className="my-3" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={phase === "upload" ? percent : undefined} data-testid="import-progress">
      <div className="mb-1 text-sm text-slate-600 dark:text-slate-300">
        {phase === "upload" ? `Загрузка файла: ${percent}%` : "Обработка файла..."}
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

const bannerColors = {
  success: "border-green-300 bg-green-50 text-green-800",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  error: "border-red-300 bg-red-50 text-red-800",
};

export function Banner({ kind, title, detail }: { kind: keyof typeof bannerColors; title: string; detail?: string }) {
  const colors = bannerColors[kind];
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`mb-4 rounded-md border px-4 py-2 text-sm ${colors}`} data-testid="import-banner">
      <div className="font-medium">{title}</div>
      {detail ? <div>{detail}</div> : null}
    </div>
  );
}
