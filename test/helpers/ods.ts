import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { buildZip, type StreamedEntry } from "./xlsx";

const run = promisify(execFile);

/**
 * Converts workbooks with LibreOffice (Debian's libreoffice-calc-nogui), headless, all in one start of soffice:
 * each `{ name, data }` (name with its extension) comes back converted to `to` (e.g. "ods", "xlsx", "xls").
 * A profile of its own per call, so runs in parallel do not share LibreOffice's lock.
 */
export async function convertWithLibreOffice(files: Array<{ name: string; data: Buffer }>, to: string): Promise<Map<string, Buffer>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "soffice-"));
  try {
    const inputs = files.map((file) => {
      const input = path.join(dir, "in", file.name);
      fs.mkdirSync(path.dirname(input), { recursive: true });
      fs.writeFileSync(input, file.data);
      return input;
    });
    const out = path.join(dir, "out");
    await run(
      "soffice",
      [`-env:UserInstallation=file://${path.join(dir, "profile")}`, "--headless", "--norestore", "--convert-to", to, "--outdir", out, ...inputs],
      { timeout: 180_000 },
    );
    const result = new Map<string, Buffer>();
    for (const file of files) {
      const converted = path.join(out, `${file.name.replace(/\.[^.]+$/, "")}.${to.split(":")[0]}`);
      result.set(file.name, fs.readFileSync(converted));
    }
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ODS_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" ' +
  'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2"';

const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
/** LibreOffice refuses a package with a part its manifest does not list. */
const MANIFEST_WITH_STYLES = MANIFEST.replace(
  "</manifest:manifest>",
  '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/></manifest:manifest>',
);

/** The XML of content.xml around these tables (`<table:table>` elements written by the caller), and its automatic styles. */
export function odsContent(tables: string, automaticStyles = ""): string {
  const styles = automaticStyles ? `<office:automatic-styles>${automaticStyles}</office:automatic-styles>` : "";
  return `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODS_NS} office:version="1.2">${styles}<office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`;
}

/**
 * A stored .ods built by hand (as Google Sheets and other non-LibreOffice writers lay it out); `styles` are the
 * common styles of a styles.xml, `automaticStyles` those of content.xml (both without one by default).
 */
export function buildOds(
  tables: string,
  mimetype = "application/vnd.oasis.opendocument.spreadsheet",
  options: { styles?: string; automaticStyles?: string } = {},
): Buffer {
  return buildZip([
    { name: "mimetype", data: mimetype },
    { name: "META-INF/manifest.xml", data: options.styles === undefined ? MANIFEST : MANIFEST_WITH_STYLES },
    ...(options.styles === undefined
      ? []
      : [
          {
            name: "styles.xml",
            data: `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${ODS_NS} office:version="1.2"><office:styles>${options.styles}</office:styles></office:document-styles>`,
          },
        ]),
    { name: "content.xml", data: odsContent(tables, options.automaticStyles) },
  ]);
}

/** The same parts, content.xml streamed chunk by chunk, for `writeZipFile` (big and hostile files). */
export function odsEntries(tables: () => Iterable<Buffer | string>, declaredSize?: number): StreamedEntry[] {
  return [
    { name: "mimetype", chunks: () => ["application/vnd.oasis.opendocument.spreadsheet"] },
    { name: "META-INF/manifest.xml", chunks: () => [MANIFEST] },
    {
      name: "content.xml",
      declaredSize,
      *chunks() {
        yield `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODS_NS} office:version="1.2"><office:body><office:spreadsheet>`;
        yield* tables();
        yield "</office:spreadsheet></office:body></office:document-content>";
      },
    },
  ];
}

/** A text cell's XML (escaped), repeated `repeat` times across. */
export function odsText(text: string, repeat = 1): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const rep = repeat > 1 ? ` table:number-columns-repeated="${repeat}"` : "";
  return `<table:table-cell office:value-type="string"${rep}><text:p>${escaped}</text:p></table:table-cell>`;
}
