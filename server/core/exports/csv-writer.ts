/**
 * An export as CSV (issue 16): UTF-8 with a BOM, so Excel opens Cyrillic right; `;` between fields, the list
 * separator of Excel in Russian and Ukrainian (with `,` Excel puts every row into one cell); CRLF line ends;
 * a field quoted when it holds `;`, a quote or a line break, its quotes doubled.
 */
export const CSV_BOM = "\uFEFF";
export const CSV_DELIMITER = ";";

/**
 * A cell that a spreadsheet program would run as a formula (`=`, `@`, or `+`/`-` followed by more than a number)
 * gets a leading `'`: an exported name must not become a formula on the admin's computer. Phones such as
 * `+380 (67) 111-22-33` are left as they are.
 */
function guarded(value: string): string {
  const first = value.charCodeAt(0);
  if (first === 61 /* = */ || first === 64 /* @ */ || first === 9 || first === 13) return `'${value}`;
  if ((first === 43 /* + */ || first === 45) /* - */ && !/^[+-][\d\s().-]*$/.test(value)) return `'${value}`;
  return value;
}

const NEEDS_QUOTES = /[";\r\n]/;

export function csvLine(cells: readonly string[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) {
    const value = guarded(cells[i]);
    if (i) line += CSV_DELIMITER;
    line += NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  }
  return `${line}\r\n`;
}
