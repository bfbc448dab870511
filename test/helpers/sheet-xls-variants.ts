import { Cells, FN, writeBiff, XF, type BiffBook } from "./xls-biff";

/**
 * Hand-built .xls files (xls-biff.ts) that reproduce what programs other than Excel and LibreOffice write into the
 * legacy format, learnt from other readers' bug reports (libxls/readxl, xlrd, calamine, ExcelDataReader, SheetJS,
 * PhpSpreadsheet): formulas whose text result sits in the STRING record after them (also past a CONTINUE, behind a
 * shared or array formula's record), booleans, errors and empty strings as formula results, inline LABEL and RSTRING
 * text, RK and MULRK numbers, shared strings continued with another character width, BIFF5 (Excel 5.0/95, which 1C
 * still writes) in a code page with or without its CODEPAGE record, missing or wrong DIMENSIONS, Excel 95's XOR
 * obfuscation, and RC4 encryption
 * with Excel's default password (what a workbook whose structure is protected is saved with; Excel and LibreOffice
 * open it without asking) or with a real one. LibreOffice reads every one; the differential test compares.
 *
 * The cached formula results are the ones Excel would have saved: LibreOffice recalculates every formula of an .xls
 * when it loads one, so a stale result would be compared with a fresh one.
 */

export interface XlsVariant {
  name: string;
  data: Buffer;
  /** Saved with a password nobody gave us: LibreOffice cannot open it either, and the import must say so. */
  encrypted?: boolean;
  /** Where LibreOffice itself reads the file wrong: the variant holding the same cells whose reading is expected, and why. */
  sameAs?: { variant: string; why: string };
}

const ERR = { div0: 0x07, na: 0x2a };

/** The text-formula sheet: every kind of result a formula leaves in an .xls, with its inputs in column A. */
function textFormulas(biff: 5 | 8, codepage = 1251) {
  const x = new Cells(biff, codepage);
  const p = x.w.ptg;
  const a2 = p.ref(1, 0);
  const long = "абв".repeat(3000);
  const label = (r: number, text: string) => x.label(r, 2, text);
  const rows: Array<[string, Buffer[], string | number | boolean | { error: number } | { emptyString: true }, number?]> = [
    ['CONCATENATE("0";A2)', [p.str("0"), a2, p.funcVar(2, FN.CONCATENATE)], "0123"],
    ['A2&"x"', [a2, p.str("x"), p.concat], "123x"],
    ['TEXT(A2;"00000")', [a2, p.str("00000"), p.func(FN.TEXT)], "00123"],
    ['""', [p.str("")], { emptyString: true }],
    ["A2*2", [a2, p.int(2), p.mul], 246],
    ["A2>0", [a2, p.int(0), p.gt], true],
    ["A2>1000", [a2, p.int(1000), p.gt], false],
    ["1/0", [p.int(1), p.int(0), p.div], { error: ERR.div0 }],
    ["NA()", [p.func(FN.NA)], { error: ERR.na }],
    ['LEFT("Привет мир";6)', [p.str("Привет мир"), p.int(6), p.funcVar(2, FN.LEFT)], "Привет"],
    ['"+7"&"9161234567"', [p.str("+7"), p.str("9161234567"), p.concat], "+79161234567"],
    ['""&A2', [p.str(""), a2, p.concat], "123"],
    ['IF(A2>0;"";"нет")', [a2, p.int(0), p.gt, p.str(""), p.str("нет"), p.funcVar(3, FN.IF)], { emptyString: true }],
    ["DATE(2024;1;15)", [p.int(2024), p.int(1), p.int(15), p.func(FN.DATE)], 45306, XF.date],
    ["ROUND(A2/7;2)", [a2, p.int(7), p.div, p.int(2), p.func(FN.ROUND)], 17.57, XF.fixed2],
    ["UPPER(C1)", [p.ref(0, 2), p.func(FN.UPPER)], "ФОРМУЛА"],
  ];
  // BIFF5 cells hold at most 255 characters: the long text is BIFF8's.
  if (biff === 8) rows.push(['REPT("абв";3000)', [p.str("абв"), p.int(3000), p.func(FN.REPT)], long]);
  const records = [x.label(0, 0, "Число"), x.label(0, 1, "Результат"), label(0, "Формула"), x.number(1, 0, 123)];
  rows.forEach(([text, tokens, result, xf], i) => {
    const r = i + 1;
    if (r > 1) records.push(x.label(r, 0, `строка ${r + 1}`));
    records.push(...x.formula(r, 1, tokens, result, { xf }), label(r, text));
  });
  return records;
}

function book(biff: 5 | 8, records: ReturnType<Cells["number"]>[], extra: Partial<BiffBook> = {}): Buffer {
  return writeBiff({ biff, codepage: biff === 5 ? 1251 : undefined, sheets: [{ name: "Лист1", records }], ...extra });
}

export function handBuiltXls(): XlsVariant[] {
  const x8 = new Cells(8);
  const x5 = new Cells(5);
  const p8 = x8.w.ptg;

  // Shared formulas: the first cell's FORMULA points at itself (PtgExp), SHRFMLA follows it, then its STRING.
  const shared = [x8.label(0, 0, "Число"), x8.label(0, 1, "Удвоенное"), x8.label(0, 2, "Текст")];
  const numbers = [1, 5, 0.25];
  numbers.forEach((n, i) => {
    const r = i + 1;
    shared.push(x8.number(r, 0, n));
    shared.push(
      ...x8.formula(r, 1, [p8.exp(1, 1)], n * 2, { flags: 0x08, after: r === 1 ? [x8.shared(1, 3, 1, 1, [p8.refN(0, -1), p8.int(2), p8.mul])] : [] }),
    );
    shared.push(
      ...x8.formula(r, 2, [p8.exp(1, 2)], `№${n}`, {
        flags: 0x08,
        after: r === 1 ? [x8.shared(1, 3, 2, 2, [p8.str("№"), p8.refN(0, -2), p8.concat])] : [],
      }),
    );
  });

  // An array formula: FORMULA (PtgExp), ARRAY, then STRING.
  const array = [
    x8.label(0, 0, "Имя"),
    x8.label(1, 0, "иван петров"),
    ...x8.formula(1, 1, [p8.exp(1, 1)], "ИВАН ПЕТРОВ", { after: [x8.array(1, 1, 1, 1, [p8.ref(1, 0), p8.func(FN.UPPER)])] }),
  ];

  // Shared strings past one record: a string split between records, first part one byte a character, the rest two.
  const sst: NonNullable<BiffBook["sst"]> = ["ФИО", "Телефон", "Комментарий"];
  for (let i = 0; i < 700; i++) sst.push(`Клиент ${i + 1}`);
  const splitAt = sst.length;
  sst.push("A".repeat(5000) + "Б".repeat(3000));
  sst.push({
    text: "Анна Сидорова",
    runs: [
      [0, 1],
      [5, 2],
    ],
  });
  sst.push("0501234567");
  const strings = [x8.labelSst(0, 0, 0), x8.labelSst(0, 1, 1), x8.labelSst(0, 2, 2)];
  for (let i = 0; i < 700; i += 7) strings.push(x8.labelSst(1 + i / 7, 0, 3 + i), x8.number(1 + i / 7, 1, 79160000000 + i));
  strings.push(x8.labelSst(120, 0, splitAt + 1), x8.labelSst(120, 1, splitAt + 2), x8.labelSst(120, 2, splitAt));
  strings.push(x8.label(121, 0, "Текст в LABEL"), x8.label(121, 1, "+79031234567"), x8.label(121, 2, "l'hôtel «Звезда»"));

  // Numbers the ways writers store them.
  const rk = [
    x8.label(0, 0, "RK"),
    x8.rk(1, 0, 42),
    x8.rk(1, 1, 12.34),
    x8.rk(1, 2, -7),
    x8.rk(1, 3, 0.5),
    x8.mulrk(2, 0, [1, 2, 3, 4.5]),
    x8.blank(3, 0),
    x8.blank(3, 1),
    x8.number(3, 2, 79161234567),
    x8.number(3, 3, 1e-10),
    x8.rk(4, 0, 45292, XF.date),
    x8.number(4, 1, 45292.75, XF.dateTime),
    x8.bool(5, 0, true),
    x8.bool(5, 1, false),
    x8.error(5, 2, ERR.na),
  ];

  // BIFF5 in Windows-1251: LABEL and RSTRING text, sheet names, and formulas whose text is a code-page STRING.
  const biff5 = [
    x5.label(0, 0, "ФИО"),
    x5.label(0, 1, "Телефон"),
    x5.rstring(1, 0, "Анна Сидорова", [
      [0, 1],
      [5, 2],
    ]),
    x5.label(1, 1, "0501234567"),
    x5.number(2, 1, 79161234567),
    x5.rk(2, 2, 45292, XF.date),
    ...x5.formula(2, 0, [x5.w.ptg.str("Пётр "), x5.w.ptg.str("Ёлкин"), x5.w.ptg.concat], "Пётр Ёлкин"),
  ];

  const contacts = (x: Cells) => [
    x.label(0, 0, "ФИО"),
    x.label(0, 1, "Телефон"),
    x.label(1, 0, "Иван Петров"),
    x.label(1, 1, "+79161234567"),
    x.number(2, 1, 79031234567),
  ];
  const encrypted = (kind: "rc4" | "rc4-cryptoapi", password: string) => book(8, contacts(x8), { encryption: { kind, password } });

  return [
    ...formulaXls(8),
    ...formulaXls(5),
    { name: "biff8-text-formulas", data: book(8, textFormulas(8)) },
    { name: "biff5-text-formulas", data: book(5, textFormulas(5)) },
    { name: "biff8-shared-formulas", data: book(8, shared) },
    { name: "biff8-array-formula", data: book(8, array) },
    { name: "biff8-sst-continued", data: book(8, strings, { sst }) },
    { name: "biff8-rk-mulrk-bool", data: book(8, rk) },
    {
      name: "biff5-cp1251",
      data: writeBiff({
        biff: 5,
        codepage: 1251,
        sheets: [
          { name: "Контакты", records: biff5 },
          { name: "Второй", records: contacts(x5) },
        ],
      }),
    },
    // 1C's Excel 5.0 files: Cyrillic text and no CODEPAGE record, the fonts' character set Cyrillic (204).
    {
      name: "biff5-no-codepage",
      data: writeBiff({ biff: 5, codepage: null, fontCharset: 204, sheets: [{ name: "Лист1", records: biff5 }] }),
      sameAs: {
        variant: "biff5-cp1251",
        why: "without a CODEPAGE record LibreOffice decodes LABEL text by its font's character set but RSTRING and formula text in its own locale's code page (Windows-1252 here): the same cells with the record are the expected reading",
      },
    },
    {
      name: "biff8-no-dimensions",
      data: writeBiff({ biff: 8, sheets: [{ name: "Лист1", records: contacts(x8), dimensions: null }] }),
      sameAs: {
        variant: "biff8-small-dimensions",
        why: "LibreOffice drops the first cell record of a sheet that has no DIMENSIONS record (a required record some small writers leave out)",
      },
    },
    { name: "biff8-small-dimensions", data: writeBiff({ biff: 8, sheets: [{ name: "Лист1", records: contacts(x8), dimensions: [0, 1, 0, 1] }] }) },
    {
      name: "biff8-hidden-first-sheet",
      data: writeBiff({
        biff: 8,
        sheets: [
          { name: "Скрытый", records: [x8.label(0, 0, "служебный")], hidden: true },
          { name: "Данные", records: contacts(x8) },
        ],
      }),
    },
    {
      name: "biff8-1904",
      data: book(8, [x8.label(0, 0, "Дата"), x8.number(1, 0, 43830, XF.date), x8.number(2, 0, 43830.5, XF.dateTime)], { date1904: true }),
    },
    // Excel saves a workbook whose structure is protected encrypted with its default password; anyone opens it.
    { name: "biff8-rc4-default-password", data: encrypted("rc4", "VelvetSweatshop") },
    { name: "biff8-cryptoapi-default-password", data: encrypted("rc4-cryptoapi", "VelvetSweatshop") },
    // Excel 95's XOR obfuscation (a protected structure saved by Excel 5.0/95) with the default password: LibreOffice
    // opens it; with another password it cannot.
    {
      name: "biff5-xor-default-password",
      data: writeBiff({
        biff: 5,
        codepage: 1251,
        sheets: [
          { name: "Контакты", records: biff5 },
          { name: "Второй", records: contacts(x5) },
        ],
        encryption: { kind: "xor", password: "VelvetSweatshop" },
      }),
    },
    { name: "biff8-xor-default-password", data: book(8, textFormulas(8), { encryption: { kind: "xor", password: "VelvetSweatshop" } }) },
    { name: "biff5-xor-password", data: book(5, contacts(x5), { encryption: { kind: "xor", password: "sekret" } }), encrypted: true },
    { name: "biff8-rc4-password", data: encrypted("rc4", "секрет"), encrypted: true },
    { name: "biff8-cryptoapi-password", data: encrypted("rc4-cryptoapi", "секрет"), encrypted: true },
  ];
}

/**
 * .xls formulas whose held result is missing or stale (decision 043), as some writers leave them: a text result
 * without its STRING record, 0 held for a text formula (LibreOffice's own headless saves without recalculating), and
 * every formula's result an empty text (Python's xlwt, which computes nothing). LibreOffice computes every .xls
 * formula on loading; the import flags these cells, and the rest (names, numbers, a right SUM) must agree.
 */
function formulaXls(biff: 5 | 8): XlsVariant[] {
  const x = new Cells(biff);
  const p = x.w.ptg;
  const phone = (r: number) => [p.str("+7"), p.ref(r, 1), p.concat];
  const sum = [p.area(1, 3, 2, 3), p.funcVar(1, FN.SUM)];
  const sheet = (phoneResult: (r: number) => Parameters<Cells["formula"]>[3], sumResult: Parameters<Cells["formula"]>[3], noString = false) => [
    x.label(0, 0, "ФИО"),
    x.label(0, 1, "Номер"),
    x.label(0, 2, "Телефон"),
    x.label(0, 3, "Сумма"),
    x.label(1, 0, "Иван Петров"),
    x.number(1, 1, 9161234567),
    ...x.formula(1, 2, phone(1), phoneResult(1), { stringRecord: !noString }),
    x.number(1, 3, 10),
    x.label(2, 0, "Мария"),
    x.number(2, 1, 9031234567),
    ...x.formula(2, 2, phone(2), phoneResult(2), { stringRecord: !noString }),
    x.number(2, 3, 5),
    x.label(3, 0, "Итого"),
    ...x.formula(3, 3, sum, sumResult),
  ];
  return [
    {
      name: `biff${biff}-formula-text-without-string`,
      data: book(
        biff,
        sheet(() => "", 15, true),
      ),
    },
    {
      name: `biff${biff}-formula-text-held-as-zero`,
      data: book(
        biff,
        sheet(() => 0, 15),
      ),
    },
    {
      name: `biff${biff}-formulas-all-empty-text`,
      data: book(
        biff,
        sheet(() => ({ emptyString: true }), { emptyString: true }),
      ),
    },
  ];
}
