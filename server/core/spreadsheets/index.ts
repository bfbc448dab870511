/**
 * Spreadsheets (DESIGN §8): what an uploaded .xlsx, .xls, .ods or .csv holds, as rows of text, read in a worker
 * thread under the limits of SHEET_LIMITS. The rest of the server uses this module through this file alone;
 * server/core/bases maps the rows to contacts, finds duplicates and writes them (decision 061).
 */
export { MESSAGES, type ReadOptions, SHEET_LIMITS, type SheetChoice, type SheetRow, workbookSignature } from "./limits";
export { readRows } from "./reader";
