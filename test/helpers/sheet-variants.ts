import zlib from "node:zlib";

/**
 * Hand-built .xlsx packages that reproduce what generators other than Excel write (learnt from the bug reports
 * behind other readers' test fixtures: openpyxl, calamine, excelize, SheetJS): empty values, inline strings,
 * missing optional parts, prefixed and strict-ISO namespaces, 1904 dates, shared formulas with cached values,
 * `_xHHHH_` escapes, rich text, merged cells, several sheets, an empty first sheet, cells without addresses, parts
 * at other paths. Every one is a package LibreOffice reads; the differential test compares our reading with its.
 */

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";
const CT = "http://schemas.openxmlformats.org/package/2006/content-types";
const STRICT_MAIN = "http://purl.oclc.org/ooxml/spreadsheetml/main";
const STRICT_REL = "http://purl.oclc.org/ooxml/officeDocument/relationships";
const XML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n`;

const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A zip written in one piece: deflated or stored entries, optional folder entries, no data descriptors. */
export function zip(entries: Array<[string, string | Buffer]>, options: { stored?: boolean; folders?: boolean } = {}): Buffer {
  const all: Array<[string, Buffer]> = [];
  const seen = new Set<string>();
  for (const [name, data] of entries) {
    if (options.folders) {
      const parts = name.split("/");
      for (let i = 1; i < parts.length; i++) {
        const folder = `${parts.slice(0, i).join("/")}/`;
        if (!seen.has(folder)) {
          seen.add(folder);
          all.push([folder, Buffer.alloc(0)]);
        }
      }
    }
    all.push([name, Buffer.isBuffer(data) ? data : Buffer.from(data)]);
  }
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [entryName, data] of all) {
    const name = Buffer.from(entryName);
    const method = options.stored || data.length === 0 ? 0 : 8;
    const body = method === 8 ? zlib.deflateRawSync(data) : data;
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(all.length, 8);
  end.writeUInt16LE(all.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

interface PackageOptions {
  /**
   * Sheets in tab order: name, part path (from the package root), the XML inside <sheetData>, what comes before it
   * (`head`: a dimension, sheet views) and after it (`extra`); a chart sheet has no data.
   */
  sheets: Array<{ name: string; path?: string; data: string; head?: string; extra?: string; chart?: boolean }>;
  /** Relationship targets as absolute part names (`/xl/worksheets/sheet1.xml`), as openpyxl and excelize write them. */
  absoluteTargets?: boolean;
  /** The worksheets' XML in UTF-16 (little-endian, with a byte-order mark), as some .NET generators write parts. */
  utf16Sheets?: boolean;
  sharedStrings?: string[];
  /** Where the shared strings are (from the package root). */
  sharedStringsPath?: string;
  styles?: string | null;
  workbookPr?: string;
  workbookPath?: string;
  prefix?: string;
  strict?: boolean;
  docProps?: boolean;
  /** docProps/app.xml's Application (the program that wrote the file; "SomeGenerator" by default). */
  application?: string;
  contentTypes?: "full" | "defaults-only" | "reversed";
  /** Put the parts in the zip in this order (others after). */
  order?: "sheets-first" | "normal";
  stored?: boolean;
  folders?: boolean;
  bom?: boolean;
  /** The names the parts get in the zip (a generator's own spelling of the names the relationships use). */
  zipNames?: (name: string) => string;
}

const STYLES_WITH_DATES = `${XML}<styleSheet xmlns="${MAIN}"><numFmts count="2"><numFmt numFmtId="164" formatCode="dd\\.mm\\.yyyy"/><numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="6"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="22" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`;

function relative(from: string, to: string): string {
  const fromParts = from.split("/").slice(0, -1);
  const toParts = to.split("/");
  let common = 0;
  while (common < fromParts.length && common < toParts.length - 1 && fromParts[common] === toParts[common]) common++;
  return [...fromParts.slice(common).map(() => ".."), ...toParts.slice(common)].join("/");
}

function buildPackage(options: PackageOptions): Buffer {
  const p = options.prefix ? `${options.prefix}:` : "";
  const ns = options.prefix ? `xmlns:${options.prefix}` : "xmlns";
  const main = options.strict ? STRICT_MAIN : MAIN;
  const rel = options.strict ? STRICT_REL : REL;
  const bom = options.bom ? "\ufeff" : "";
  const workbookPath = options.workbookPath ?? "xl/workbook.xml";
  const workbookDir = workbookPath.split("/").slice(0, -1).join("/");
  const relsPath = `${workbookDir ? `${workbookDir}/` : ""}_rels/${workbookPath.split("/").pop()}.rels`;
  const sheetPaths = options.sheets.map((sheet, i) => sheet.path ?? `${workbookDir ? `${workbookDir}/` : ""}worksheets/sheet${i + 1}.xml`);
  const sharedPath = options.sharedStrings ? (options.sharedStringsPath ?? `${workbookDir ? `${workbookDir}/` : ""}sharedStrings.xml`) : null;
  const stylesPath = options.styles === null ? null : `${workbookDir ? `${workbookDir}/` : ""}styles.xml`;
  const parts: Array<[string, string]> = [];

  const overrides = [
    [`/${workbookPath}`, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"],
    ...sheetPaths.map((sheet, i) => [
      `/${sheet}`,
      `application/vnd.openxmlformats-officedocument.spreadsheetml.${options.sheets[i].chart ? "chartsheet" : "worksheet"}+xml`,
    ]),
    ...(sharedPath ? [[`/${sharedPath}`, "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"]] : []),
    ...(stylesPath ? [[`/${stylesPath}`, "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"]] : []),
  ].map(([name, type]) => `<Override PartName="${name}" ContentType="${type}"/>`);
  const defaults = [
    `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>`,
    `<Default Extension="xml" ContentType="application/xml"/>`,
  ];
  const mode = options.contentTypes ?? "full";
  const types =
    mode === "defaults-only" ? [...defaults] : mode === "reversed" ? [...overrides.reverse(), ...defaults.reverse()] : [...defaults, ...overrides];
  parts.push(["[Content_Types].xml", `${bom}${XML}<Types xmlns="${CT}">${types.join("")}</Types>`]);
  const target = (from: string, to: string) => (options.absoluteTargets ? `/${to}` : relative(from, to));
  const rootRels = [`<Relationship Id="rId1" Type="${rel}/officeDocument" Target="${options.absoluteTargets ? "/" : ""}${workbookPath}"/>`];
  if (options.docProps) {
    rootRels.push(
      `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>`,
    );
    rootRels.push(`<Relationship Id="rId3" Type="${REL}/extended-properties" Target="docProps/app.xml"/>`);
    parts.push([
      "docProps/core.xml",
      `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>generator</dc:creator></cp:coreProperties>`,
    ]);
    parts.push([
      "docProps/app.xml",
      `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>${esc(options.application ?? "SomeGenerator")}</Application></Properties>`,
    ]);
  }
  parts.push(["_rels/.rels", `${bom}${XML}<Relationships xmlns="${PKG}">${rootRels.join("")}</Relationships>`]);

  const sheetsXml = options.sheets.map((sheet, i) => `<${p}sheet name="${esc(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("");
  parts.push([
    workbookPath,
    `${bom}${XML}<${p}workbook ${ns}="${main}" xmlns:r="${rel}">${options.workbookPr ?? ""}<${p}sheets>${sheetsXml}</${p}sheets></${p}workbook>`,
  ]);
  const workbookRels = sheetPaths.map(
    (sheet, i) =>
      `<Relationship Id="rId${i + 1}" Type="${rel}/${options.sheets[i].chart ? "chartsheet" : "worksheet"}" Target="${target(workbookPath, sheet)}"/>`,
  );
  if (sharedPath) workbookRels.push(`<Relationship Id="rIdS" Type="${rel}/sharedStrings" Target="${target(workbookPath, sharedPath)}"/>`);
  if (stylesPath) workbookRels.push(`<Relationship Id="rIdT" Type="${rel}/styles" Target="${target(workbookPath, stylesPath)}"/>`);
  parts.push([relsPath, `${bom}${XML}<Relationships xmlns="${PKG}">${workbookRels.join("")}</Relationships>`]);
  if (sharedPath) {
    parts.push([
      sharedPath,
      `${bom}${XML}<${p}sst ${ns}="${main}" count="${options.sharedStrings!.length}" uniqueCount="${options.sharedStrings!.length}">${options.sharedStrings!.map((item) => `<${p}si>${item}</${p}si>`).join("")}</${p}sst>`,
    ]);
  }
  if (stylesPath) {
    let styles = options.styles ?? STYLES_WITH_DATES;
    if (options.strict) styles = styles.replace(MAIN, STRICT_MAIN);
    if (options.prefix)
      styles = styles.replace(/<(\/?)(\w)/g, `<$1${p}$2`).replace(`xmlns="${options.strict ? STRICT_MAIN : MAIN}"`, `${ns}="${main}"`);
    parts.push([stylesPath, `${bom}${styles}`]);
  }
  const sheetParts: Array<[string, string | Buffer]> = options.sheets.map((sheet, i) => {
    const xml = sheet.chart
      ? `${XML}<${p}chartsheet ${ns}="${main}" xmlns:r="${rel}"><${p}sheetViews><${p}sheetView workbookViewId="0"/></${p}sheetViews></${p}chartsheet>`
      : `${bom}${XML}<${p}worksheet ${ns}="${main}" xmlns:r="${rel}">${sheet.head ?? ""}<${p}sheetData>${sheet.data}</${p}sheetData>${sheet.extra ?? ""}</${p}worksheet>`;
    return [sheetPaths[i], options.utf16Sheets ? Buffer.from(`\ufeff${xml.replace('encoding="UTF-8"', 'encoding="UTF-16"')}`, "utf16le") : xml];
  });
  const ordered = options.order === "sheets-first" ? [...sheetParts, ...parts] : [...parts, ...sheetParts];
  const rename = options.zipNames ?? ((name: string) => name);
  return zip(
    ordered.map(([name, data]) => [rename(name), data]),
    { stored: options.stored, folders: options.folders },
  );
}

/** Text cells, inline. */
const inline = (ref: string, text: string, p = "") =>
  `<${p}c r="${ref}" t="inlineStr"><${p}is><${p}t xml:space="preserve">${esc(text)}</${p}t></${p}is></${p}c>`;
const num = (ref: string, value: number | string, style?: number, p = "") =>
  `<${p}c r="${ref}"${style ? ` s="${style}"` : ""}><${p}v>${value}</${p}v></${p}c>`;
const shared = (ref: string, index: number, p = "") => `<${p}c r="${ref}" t="s"><${p}v>${index}</${p}v></${p}c>`;
const row = (r: number, cells: string, p = "") => `<${p}row r="${r}">${cells}</${p}row>`;
const si = (text: string) => `<t xml:space="preserve">${esc(text)}</t>`;

export interface Variant {
  name: string;
  data: Buffer;
  /** Worth saving as .xls by LibreOffice too (dates, formulas, sheets survive the save). */
  alsoAsXls?: boolean;
  /**
   * Where LibreOffice itself reads the package wrong: the variant holds the same cells as this other variant, whose
   * LibreOffice reading is the expected one, and why.
   */
  sameAs?: { variant: string; why: string };
}

/** The contact sheet every plain variant holds: text, a phone as text and as a number, a date. */
const CONTACT_STRINGS = ["ФИО", "Телефон", "Дата", "Иван Петров", "+79161234567", "Мария", "0501234567"];
const contactRows = (p = "") =>
  row(1, shared("A1", 0, p) + shared("B1", 1, p) + shared("C1", 2, p), p) +
  row(2, shared("A2", 3, p) + shared("B2", 4, p) + num("C2", 45292, 1, p), p) +
  row(3, shared("A3", 5, p) + shared("B3", 6, p) + num("C3", 45337.5, 4, p), p) +
  row(4, inline("A4", "Ольга", p) + num("B4", 79031234567, 0, p) + num("C4", 36526, 2, p), p);

/** LibreOffice 7.4 reads a prefixed sheet (x:c) but not a prefixed shared-string table (x:sst, x:si, x:t). */
const PREFIXED_SST =
  "LibreOffice leaves the strings of a prefixed shared-string table (x:sst, as .NET's Open XML SDK writes it) empty; Excel reads them";

export function handBuiltXlsx(): Variant[] {
  const plain = (name: string, options: Partial<PackageOptions>, alsoAsXls = false): Variant => ({
    name,
    alsoAsXls,
    data: buildPackage({
      sheets: [{ name: "Лист1", data: contactRows(options.prefix ? `${options.prefix}:` : "") }],
      sharedStrings: CONTACT_STRINGS.map(si),
      docProps: true,
      ...options,
    }),
  });
  const variants: Variant[] = [
    plain("plain", {}),
    plain("stored", { stored: true }),
    plain("folder-entries", { folders: true }),
    plain("no-docprops", { docProps: false }),
    plain("content-types-reversed", { contentTypes: "reversed" }),
    plain("sheets-first-in-zip", { order: "sheets-first" }),
    { ...plain("prefixed-x", { prefix: "x" }), sameAs: { variant: "plain", why: PREFIXED_SST } },
    { ...plain("prefixed-main", { prefix: "main" }), sameAs: { variant: "plain", why: PREFIXED_SST } },
    plain("strict-iso", { strict: true }),
    { ...plain("strict-iso-prefixed", { strict: true, prefix: "x" }), sameAs: { variant: "plain", why: PREFIXED_SST } },
    plain("bom-in-parts", { bom: true }),
    plain("workbook-elsewhere", { workbookPath: "xl/workbook2.xml" }),
    // A Windows tool that zipped the folder with its own separators (calamine's issue 530).
    {
      ...plain("backslash-names", { zipNames: (name) => name.replace(/\//g, "\\") }),
      sameAs: { variant: "plain", why: "LibreOffice does not find the parts of a zip with backslashes in its names; Office opens it" },
    },
    // A database export whose parts are spelt with other capitals than its relationships (xlrd's issues 150, 169).
    {
      ...plain("names-in-other-case", { zipNames: (name) => name.replace("sharedStrings", "SharedStrings").replace("sheet1", "Sheet1") }),
      sameAs: { variant: "plain", why: "LibreOffice matches part names with their case; the package format (ECMA-376 part 2) compares them without" },
    },
    plain("workbook-at-root", { workbookPath: "workbook.xml" }),
    plain("shared-strings-elsewhere", { sharedStringsPath: "xl/strings/shared.xml" }),
    plain("date1904", { workbookPr: `<workbookPr date1904="1"/>` }, true),
    plain("date1904-true", { workbookPr: `<workbookPr date1904="true"/>` }),
    plain("date1904-false", { workbookPr: `<workbookPr date1904="false"/>` }),
    {
      name: "empty-shared-value",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, shared("A1", 0) + shared("B1", 1)) +
              row(2, `<c r="A2" t="s"><v/></c>` + shared("B2", 2)) +
              row(3, `<c r="A3" t="s"><v></v></c><c r="B3" t="s"/>` + shared("C3", 3)) +
              row(4, `<c r="A4" t="n"><v/></c><c r="B4"><v></v></c><c r="C4" t="str"><v/></c><c r="D4" t="b"><v/></c>`),
          },
        ],
        sharedStrings: ["ФИО", "Телефон", "+79161234567", "Мария"].map(si),
      }),
    },
    {
      name: "inline-strings",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, inline("A1", "ФИО") + inline("B1", "  с пробелами  ")) +
              row(
                2,
                `<c r="A2" t="inlineStr"><is><r><rPr><b/></rPr><t>Анна </t></r><r><t>Сидорова</t></r></is></c>` +
                  `<c r="B2" t="inlineStr"><is><t>0501234567</t></is></c>`,
              ) +
              row(3, `<c r="A3" t="inlineStr"><is><t>Строка_x000D__x000A_вторая</t></is></c><c r="B3" t="inlineStr"><is/></c>`),
          },
        ],
        styles: null,
      }),
    },
    {
      name: "no-styles-no-shared-strings",
      data: buildPackage({
        sheets: [{ name: "Лист1", data: row(1, inline("A1", "Число") + inline("B1", "Дата?")) + row(2, num("A2", 12.5) + num("B2", 45292)) }],
        styles: null,
        docProps: false,
      }),
    },
    {
      name: "shared-formulas",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, inline("A1", "Число") + inline("B1", "Удвоенное") + inline("C1", "Текст")) +
              row(
                2,
                num("A2", 1) +
                  `<c r="B2"><f t="shared" ref="B2:B4" si="0">A2*2</f><v>2</v></c><c r="C2" t="str"><f t="shared" ref="C2:C4" si="1">"№"&amp;A2</f><v>№1</v></c>`,
              ) +
              row(3, num("A3", 5) + `<c r="B3"><f t="shared" si="0"/><v>10</v></c><c r="C3" t="str"><f t="shared" si="1"/><v>№5</v></c>`) +
              row(4, num("A4", 0.25) + `<c r="B4"><f t="shared" si="0"/><v>0.5</v></c><c r="C4" t="str"><f t="shared" si="1"/><v>№0.25</v></c>`) +
              row(5, `<c r="A5"><f>SUM(A2:A4)</f><v>6.25</v></c><c r="B5" t="b"><v>1</v></c><c r="C5" t="e"><f>1/0</f><v>#DIV/0!</v></c>`),
          },
        ],
        sharedStrings: [],
      }),
    },
    {
      name: "escapes",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [{ name: "Лист1", data: row(1, shared("A1", 0) + shared("B1", 1)) + row(2, shared("A2", 2) + shared("B2", 3)) }],
        sharedStrings: [si("Адрес_x000D__x000A_второй"), si("Буквально _x005F_x000D_"), si("Таб_x0009_здесь"), si("ул. Ленина,_x000D_ д. 5")],
      }),
    },
    {
      name: "rich-text",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [{ name: "Лист1", data: row(1, shared("A1", 0) + shared("B1", 1)) + row(2, shared("A2", 2)) }],
        sharedStrings: [
          `<r><rPr><b/><sz val="11"/></rPr><t>Анна </t></r><r><rPr><i/></rPr><t>Сидорова</t></r>`,
          `<r><t xml:space="preserve">  пробел </t></r><r><t>в</t></r><r><t xml:space="preserve"> начале</t></r>`,
          `<t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/>`,
        ],
      }),
    },
    {
      name: "merged-cells",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, inline("A1", "Объединено") + `<c r="B1"/>` + inline("C1", "C1")) +
              row(2, `<c r="A2"/><c r="B2"/>` + num("C2", 2)) +
              row(3, inline("A3", "A3") + num("B3", 3)),
            extra: `<mergeCells count="1"><mergeCell ref="A1:B2"/></mergeCells>`,
          },
        ],
      }),
    },
    {
      name: "several-sheets-listed-out-of-zip-order",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          { name: "Главный", path: "xl/worksheets/sheet3.xml", data: row(1, inline("A1", "Главный лист")) + row(2, num("A2", 3)) },
          { name: "Второй", path: "xl/worksheets/sheet1.xml", data: row(1, inline("A1", "Второй лист")) },
          { name: "Третий", path: "xl/worksheets/sheet2.xml", data: row(1, inline("A1", "Третий лист")) },
        ],
        order: "sheets-first",
      }),
    },
    {
      name: "empty-first-sheet",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          { name: "Пусто", data: "" },
          { name: "Данные", data: row(1, inline("A1", "ФИО")) + row(2, inline("A2", "Иван")) },
        ],
      }),
    },
    {
      name: "no-cell-addresses",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: `<row><c t="s"><v>0</v></c><c t="s"><v>1</v></c></row><row><c t="s"><v>3</v></c><c/><c s="1"><v>45292</v></c></row><row r="5"><c><v>5</v></c></row><row><c t="inlineStr"><is><t>шесть</t></is></c></row>`,
          },
        ],
        sharedStrings: CONTACT_STRINGS.map(si),
      }),
    },
    {
      name: "cell-types",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, `<c r="A1" t="b"><v>1</v></c><c r="B1" t="b"><v>0</v></c><c r="C1" t="e"><v>#N/A</v></c><c r="D1" t="n"><v>7</v></c>`) +
              row(2, `<c r="A2"><v>1.5E+3</v></c><c r="B2"><v>-0</v></c><c r="C2"><v>1E-3</v></c><c r="D2" t="str"><v>00123</v></c>`) +
              row(
                3,
                `<c r="A3" t="d" s="3"><v>2024-03-08T09:30:00</v></c><c r="B3" t="d" s="1"><v>2024-03-08</v></c><c r="C3" s="5"><v>1234.5</v></c>`,
              ),
          },
        ],
      }),
    },
    {
      name: "date-formats",
      alsoAsXls: true,
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, inline("A1", "14") + inline("B1", "custom") + inline("C1", "datetime") + inline("D1", "22")) +
              row(2, num("A2", 1, 1) + num("B2", 60, 2) + num("C2", 61.25, 3) + num("D2", 45292.99930555555, 4)) +
              row(3, num("A3", 45658, 1) + num("B3", 2958465, 2) + num("C3", 25569.5, 3) + num("D3", 36526.0416666667, 4)),
          },
        ],
      }),
    },
    {
      name: "whitespace-and-line-breaks",
      data: buildPackage({
        sheets: [{ name: "Лист1", data: row(1, shared("A1", 0) + shared("B1", 1)) + row(2, shared("A2", 2) + shared("B2", 3)) }],
        sharedStrings: [`<t xml:space="preserve">  с пробелами  </t>`, `<t>строка\r\nвторая</t>`, `<t>   </t>`, `<t>табуляция&#9;внутри</t>`],
      }),
    },
    {
      name: "wide-and-sparse",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, inline("A1", "A") + inline("Z1", "Z") + inline("AA1", "AA") + inline("CV1", "CV")) + row(1000, num("B1000", 1000)),
          },
        ],
      }),
    },
    {
      name: "rows-out-of-range-spans",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: `<row r="1" spans="1:3" ht="15" customHeight="1"><c r="A1" t="inlineStr"><is><t>ФИО</t></is></c></row><row r="2" spans="1:3" hidden="1"><c r="A2" t="inlineStr"><is><t>Скрытый</t></is></c></row>`,
            extra: `<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>`,
          },
        ],
      }),
    },
    // Quirks of other generators (openpyxl and excelize write absolute targets; Power BI and other exporters leave
    // out cell addresses now and then; dimensions that say nothing true; phonetic runs in inline strings).
    plain("absolute-targets", { absoluteTargets: true }),
    {
      ...plain("xl-folder-in-capitals", { zipNames: (name) => name.replace(/^xl\//, "XL/").replace("worksheets/", "Worksheets/") }),
      sameAs: { variant: "plain", why: "LibreOffice matches part names with their case; the package format (ECMA-376 part 2) compares them without" },
    },
    {
      name: "dimensions-wrong",
      data: buildPackage({
        sheets: [
          { name: "Лист1", head: `<dimension ref="A1"/>`, data: contactRows() },
          { name: "Второй", head: `<dimension ref="A0:AZ48943"/>`, data: row(1, inline("A1", "второй")) },
        ],
        sharedStrings: CONTACT_STRINGS.map(si),
      }),
    },
    // Formulas whose value the file does not hold, or holds stale (decision 043): openpyxl and other libraries
    // write a formula without a value; LibreOffice computes it on loading the file, and a text result too when the
    // file was written by another program than Excel or LibreOffice. The import flags those cells (the preview
    // warns, the import refuses them); what LibreOffice keeps (a stale number, text from "Excel") must agree.
    ...formulaVariants(),
    {
      name: "dimension-past-data",
      data: buildPackage({
        sheets: [{ name: "Лист1", head: `<dimension ref="B2:XFD1048576"/>`, data: contactRows() }],
        sharedStrings: CONTACT_STRINGS.map(si),
      }),
    },
    {
      name: "addresses-mixed",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              `<row r="1"><c r="B1" t="s"><v>0</v></c><c t="s"><v>1</v></c></row>` +
              `<row><c t="inlineStr"><is><t>без адреса</t></is></c><c r="E2"><v>5</v></c><c><v>6</v></c></row>` +
              `<row r="5"><c t="s"><v>3</v></c></row>` +
              `<row><c r="C6" t="s"><v>4</v></c><c t="s"><v>6</v></c></row>`,
          },
        ],
        sharedStrings: CONTACT_STRINGS.map(si),
      }),
    },
    {
      name: "rows-out-of-order",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, inline("A1", "ФИО")) + row(3, inline("A3", "третья")) + row(2, inline("A2", "вторая")) + row(4, inline("A4", "четвёртая")),
          },
        ],
      }),
    },
    {
      name: "phonetic-runs",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, shared("A1", 0) + shared("B1", 1)) +
              row(
                2,
                `<c r="A2" t="inlineStr"><is><r><t>東</t></r><rPh sb="0" eb="1"><t>ひがし</t></rPh><r><rPr><b/></rPr><t>京</t></r><phoneticPr fontId="1"/></is></c>` +
                  `<c r="B2" t="inlineStr"><is><t>大阪</t><rPh sb="0" eb="2"><t>おおさか</t></rPh></is></c>`,
              ),
          },
        ],
        sharedStrings: [
          `<r><t>日本</t></r><rPh sb="0" eb="2"><t>にほん</t></rPh><r><t xml:space="preserve"> 語</t></r><phoneticPr fontId="1" type="noConversion"/>`,
          `<t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh>`,
        ],
      }),
    },
    {
      name: "number-spellings",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, num("A1", "1E+21") + num("B1", "-1.23E-5") + num("C1", ".5") + num("D1", "5.")) +
              row(2, num("A2", "1.0E2") + num("B2", "7E0") + num("C2", "1.7976931348623157E+308") + num("D2", "000123")) +
              row(3, num("A3", "79161234567") + num("B3", "-0.0") + num("C3", "4.9E-324") + num("D3", "123456789012345678")),
          },
        ],
        styles: null,
      }),
    },
    {
      name: "long-shared-strings",
      data: (() => {
        const strings = Array.from({ length: 30_000 }, (_, i) => si(`Клиент ${i + 1} ${CITIES_SHORT[i % CITIES_SHORT.length]}`));
        let rows = "";
        for (let r = 1; r <= 1500; r++)
          rows += row(r, shared(`A${r}`, (r * 19) % 30_000) + shared(`B${r}`, 30_000 - r) + num(`C${r}`, 79160000000 + r));
        return buildPackage({ sheets: [{ name: "Лист1", data: rows }], sharedStrings: strings });
      })(),
    },
    {
      name: "chartsheet-first",
      data: buildPackage({
        sheets: [
          { name: "Диаграмма", data: "", chart: true },
          { name: "Данные", data: row(1, inline("A1", "ФИО")) + row(2, inline("A2", "Иван")) },
        ],
      }),
    },
    {
      name: "style-index-out-of-range",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, inline("A1", "Число")) + row(2, num("A2", 45292, 99) + num("B2", 12.5, 6) + `<c r="C2" s="-1"><v>7</v></c>`),
          },
        ],
      }),
    },
    {
      name: "date-formats-more",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data:
              row(1, num("A1", 45292.5, 1) + num("B1", 45292.5, 2) + num("C1", 45292.5, 3) + num("D1", 45292.5, 4) + num("E1", 45292.5, 5)) +
              row(2, num("A2", 1.75, 6) + num("B2", 45292, 7) + num("C2", 0.15, 8) + num("D2", 45292, 9) + num("E2", 1234.5, 10)),
          },
        ],
        styles: stylesWith([
          '[$-419]d mmmm yyyy "г."',
          "[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy",
          "[$-409]mmmm d, yyyy h:mm AM/PM",
          "yyyy\\-mm\\-dd;@",
          "[Red]0.00;[Blue]-0.00",
          "[h]:mm:ss",
          "mmm\\-yy",
          "0.00%",
          'dd/mm/yyyy" г."',
          '#,##0.00" ₽"',
        ]),
      }),
    },
    {
      name: "booleans",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, `<c r="A1" t="b"><v>1</v></c><c r="B1" t="b"><v>0</v></c><c r="C1" t="b"><v> 1 </v></c><c r="D1" t="b"><v>0</v></c>`),
          },
        ],
        styles: null,
      }),
    },
    // excel4node writes booleans as true/false, which Excel reads (xsd:boolean; MS-OI29500 2.1.659).
    {
      name: "booleans-spelt",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, `<c r="A1" t="b"><v>true</v></c><c r="B1" t="b"><v>false</v></c><c r="C1" t="b"><v> 1 </v></c><c r="D1" t="b"><v>0</v></c>`),
          },
        ],
        styles: null,
      }),
      sameAs: {
        variant: "booleans",
        why: "LibreOffice reads a boolean written as true as FALSE (its bug 155046); Excel reads true and false as xsd:boolean",
      },
    },
    {
      name: "utf16-sheet",
      data: buildPackage({ sheets: [{ name: "Лист1", data: contactRows() }], sharedStrings: CONTACT_STRINGS.map(si), utf16Sheets: true }),
    },
    {
      name: "duplicate-cells",
      data: buildPackage({
        sheets: [
          {
            name: "Лист1",
            data: row(1, inline("A1", "первое") + inline("A1", "второе") + inline("B1", "B")) + row(2, num("A2", 1)) + row(2, num("B2", 2)),
          },
        ],
      }),
    },
  ];
  return variants;
}

const CITIES_SHORT = ["Москва", "Тверь", "Омск", "Сочи", "Уфа"];

/** A styles part whose cell formats 1, 2, … are these custom number formats (164 and up), 0 General. */
function stylesWith(formats: string[]): string {
  const numFmts = formats.map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${esc(code)}"/>`).join("");
  const xfs = [
    `<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`,
    ...formats.map((_, i) => `<xf numFmtId="${164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`),
  ];
  return `${XML}<styleSheet xmlns="${MAIN}"><numFmts count="${formats.length}">${numFmts}</numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${xfs.length}">${xfs.join("")}</cellXfs></styleSheet>`;
}

/** The formula variants: a contact sheet whose phone (column C) is a formula of column B, as a base is often built. */
function formulaVariants(): Variant[] {
  const contacts = (phone: (r: number) => string, total: string) =>
    row(1, inline("A1", "ФИО") + inline("B1", "Номер") + inline("C1", "Телефон") + inline("D1", "Сумма")) +
    row(2, inline("A2", "Иван Петров") + num("B2", 9161234567) + phone(2) + num("D2", 10)) +
    row(3, inline("A3", "Мария") + num("B3", 9031234567) + phone(3) + num("D3", 5)) +
    row(4, inline("A4", "Итого") + total);
  const text = (r: number, value?: string) => `<c r="C${r}" t="str"><f>"+7"&amp;B${r}</f>${value === undefined ? "" : `<v>${esc(value)}</v>`}</c>`;
  const sum = (value?: string) => `<c r="D4"><f>SUM(D2:D3)</f>${value === undefined ? "" : `<v>${value}</v>`}</c>`;
  const sheet = (data: string) => [{ name: "Лист1", data }];
  return [
    // openpyxl (its app.xml says "Microsoft Excel"), xlsxwriter-like libraries without results, hand-edited XML.
    {
      name: "formulas-without-values",
      data: buildPackage({ sheets: sheet(contacts((r) => text(r), sum())), docProps: true, application: "Microsoft Excel" }),
    },
    {
      name: "formulas-empty-values",
      data: buildPackage({ sheets: sheet(contacts((r) => text(r, ""), sum(""))), docProps: true, application: "SomeGenerator" }),
    },
    // Another program's text results: LibreOffice computes them (a stale one here), keeps its numbers (a stale one).
    {
      name: "formulas-stale-other-program",
      data: buildPackage({ sheets: sheet(contacts((r) => text(r, "+70000000000"), sum("99"))), docProps: true }),
    },
    // Excel's and LibreOffice's held results are kept as they are, stale or not: we agree without a flag.
    {
      name: "formulas-stale-excel",
      data: buildPackage({ sheets: sheet(contacts((r) => text(r, `+7старый${r}`), sum("99"))), docProps: true, application: "Microsoft Excel" }),
    },
    {
      name: "formulas-right-libreoffice",
      data: buildPackage({
        sheets: sheet(contacts((r) => text(r, r === 2 ? "+79161234567" : "+79031234567"), sum("15"))),
        docProps: true,
        application: "LibreOffice/7.4.7.2$Linux_X86_64 LibreOffice_project/40$Build-2",
      }),
    },
  ];
}

/**
 * An .ods whose phone column is formulas without a value (no office:value-type), as a program that writes formulas
 * and computes nothing leaves them (decision 043): LibreOffice computes them on loading, the import flags them. The
 * names, the numbers and a formula with its value held must agree.
 */
export function odsFormulasWithoutValues(): Buffer {
  const cell = (inner: string) => `<table:table-cell ${inner}`;
  const text = (value: string) => `${cell('office:value-type="string"')}><text:p>${esc(value)}</text:p></table:table-cell>`;
  const number = (value: number) => `${cell(`office:value-type="float" office:value="${value}"`)}><text:p>${value}</text:p></table:table-cell>`;
  const phone = (r: number) => `${cell(`table:formula="of:=&quot;+7&quot;&amp;[.B${r}]"`)}/>`;
  const rows = [
    [text("ФИО"), text("Номер"), text("Телефон"), text("Сумма")],
    [text("Иван Петров"), number(9161234567), phone(2), number(10)],
    [text("Мария"), number(9031234567), phone(3), number(5)],
    [
      text("Итого"),
      `<table:table-cell table:number-columns-repeated="2"/>`,
      `${cell('table:formula="of:=SUM([.D2:.D3])" office:value-type="float" office:value="15"')}><text:p>15</text:p></table:table-cell>`,
    ],
  ];
  const content = `${XML}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Лист1">${rows.map((r) => `<table:table-row>${r.join("")}</table:table-row>`).join("")}</table:table></office:spreadsheet></office:body></office:document-content>`;
  const manifest = `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  return zip(
    [
      ["mimetype", "application/vnd.oasis.opendocument.spreadsheet"],
      ["META-INF/manifest.xml", manifest],
      ["content.xml", content],
    ],
    { stored: true },
  );
}
