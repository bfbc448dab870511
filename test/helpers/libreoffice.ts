import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { XmlStream } from "../../server/core/spreadsheets/xml-stream";
import { endWithTheRun } from "./children";

/**
 * LibreOffice (Debian's libreoffice-calc-nogui) as the tests' second opinion on spreadsheets: `convert` turns a
 * batch of files into another format in ONE soffice process (it starts in seconds, then takes a fraction of a
 * second a file), with a profile of its own so parallel runs and other users' soffice do not share a lock;
 * `readFods` parses the flat ODF it writes, which holds every cell's type and exact value.
 */
export async function convert(
  files: string[],
  to: string,
  outDir: string,
  options: { infilter?: string; recalculate?: boolean } = {},
): Promise<void> {
  if (!files.length) return;
  fs.mkdirSync(outDir, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "soffice-profile-"));
  // Headless, cells are computed only when something asks for them: a formula never looked at is saved with a
  // stale result (0 for a text). Recalculating on load saves what a person who opened the file would have saved.
  if (options.recalculate) {
    fs.mkdirSync(path.join(profile, "user"), { recursive: true });
    const item = (kind: string) =>
      `<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="${kind}" oor:op="fuse"><value>0</value></prop></item>`;
    fs.writeFileSync(
      path.join(profile, "user", "registrymodifications.xcu"),
      `<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${item("OOXMLRecalcMode")}${item("ODFRecalcMode")}</oor:items>`,
    );
  }
  const args = [
    `-env:UserInstallation=${pathToFileURL(profile).href}`,
    "--headless",
    "--norestore",
    "--nolockcheck",
    ...(options.infilter ? [`--infilter=${options.infilter}`] : []),
    "--convert-to",
    to,
    "--outdir",
    outDir,
    ...files,
  ];
  try {
    await new Promise<void>((resolve, reject) => {
      // Its own process group, so that the run's teardown can end soffice.bin too if the test is killed.
      const child = spawn("soffice", args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
      endWithTheRun(child);
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`soffice exited with ${code}: ${stderr.slice(0, 500)}`))));
    });
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * The Python that drives LibreOffice through its UNO bridge (Debian's python3-uno): soffice's command line takes no
 * password, so a file saved with one is saved through the API. It starts its own soffice on a pipe, with its own
 * profile, saves each job (the media descriptor's Password for .xls and .ods; for .xlsx the encryption data the
 * OOXML filter reads, "standard" encryption, the only kind LibreOffice 7.4 writes), and ends soffice.
 */
const SAVE_WITH_PASSWORD_PY = String.raw`
import json, os, subprocess, sys, time
import uno
from com.sun.star.beans import PropertyValue, NamedValue

def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p

def named(name, value):
    n = NamedValue()
    n.Name = name
    n.Value = value
    return n

profile, jobs = sys.argv[1], json.loads(sys.argv[2])
pipe = "leaddesk-soffice-%d" % os.getpid()
office = subprocess.Popen(["soffice", "-env:UserInstallation=" + profile, "--headless", "--norestore", "--nolockcheck",
                           "--accept=pipe,name=%s;urp;" % pipe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for attempt in range(600):
        try:
            context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except Exception:
            time.sleep(0.1)
    else:
        sys.exit("soffice did not answer on its pipe")
    desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    for job in jobs:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job["input"]), "_blank", 0, (prop("Hidden", True),))
        if job["filter"].startswith("Calc MS Excel 2007"):
            secret = uno.Any("[]com.sun.star.beans.NamedValue", (named("OOXPassword", job["password"]), named("CryptoType", "Standard")))
            args = (prop("FilterName", job["filter"]), prop("EncryptionData", secret))
        else:
            args = (prop("FilterName", job["filter"]), prop("Password", job["password"]))
        doc.storeToURL(uno.systemPathToFileUrl(job["output"]), args)
        doc.close(True)
    try:
        desktop.terminate()
    except Exception:
        pass
    office.wait(timeout=60)
finally:
    if office.poll() is None:
        office.kill()
`;

/**
 * Saves each input with a password, by LibreOffice itself (SAVE_WITH_PASSWORD_PY): one soffice for all the jobs. The
 * Python and its soffice run in a process group of their own, ended with the test run if it is killed.
 */
export async function saveWithPassword(jobs: Array<{ input: string; output: string; filter: string; password: string }>): Promise<void> {
  if (!jobs.length) return;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "soffice-profile-"));
  // Debian's python3-uno is for the system's Python, not one that a version manager puts first on the PATH.
  const python = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(python, ["-c", SAVE_WITH_PASSWORD_PY, pathToFileURL(profile).href, JSON.stringify(jobs)], {
        stdio: ["ignore", "ignore", "pipe"],
        detached: true,
      });
      endWithTheRun(child);
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("exit", (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`saving with a password through LibreOffice's Python bridge (python3-uno) failed with ${code}: ${stderr.slice(-800)}`)),
      );
    });
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** A cell as LibreOffice holds it: its value type and value (`text` for strings, the ODF value for the rest). */
export interface LoCell {
  type: "string" | "float" | "percentage" | "currency" | "date" | "time" | "boolean" | "error";
  value: string;
}

export interface LoSheet {
  name: string;
  /** Cells by "row,column" (0-based), empty cells left out. */
  cells: Map<string, LoCell>;
}

/** Repeated empty rows and columns are how ODF fills a sheet to its end; repeated cells with content are kept. */
const MAX_REPEAT = 1000;

/** Every sheet of a flat ODF spreadsheet (.fods), with its non-empty cells. */
export function readFods(file: string): LoSheet[] {
  const sheets: LoSheet[] = [];
  let sheet: LoSheet | null = null;
  let row = 0;
  let rowRepeat = 1;
  let rowCells: Array<[number, LoCell]> = [];
  let column = 0;
  let cell: { type: string; value: string; repeat: number; paragraphs: string[] | null } | null = null;
  let annotation = 0;
  let inParagraph = false;
  const parser = new XmlStream({
    open(name, attributes) {
      if (annotation > 0) {
        if (name === "office:annotation") annotation++;
        return;
      }
      switch (name) {
        case "table:table":
          sheet = { name: attributes["table:name"] ?? "", cells: new Map() };
          sheets.push(sheet);
          row = 0;
          break;
        case "table:table-row":
          rowRepeat = Number(attributes["table:number-rows-repeated"] ?? 1);
          rowCells = [];
          column = 0;
          break;
        case "table:table-cell":
        case "table:covered-table-cell": {
          const type = attributes["calcext:value-type"] === "error" ? "error" : (attributes["office:value-type"] ?? "");
          const value =
            attributes["office:value"] ??
            attributes["office:date-value"] ??
            attributes["office:time-value"] ??
            attributes["office:boolean-value"] ??
            attributes["office:string-value"] ??
            "";
          cell = { type, value, repeat: Number(attributes["table:number-columns-repeated"] ?? 1), paragraphs: null };
          if (name === "table:covered-table-cell") cell.type = "";
          break;
        }
        case "office:annotation":
          annotation = 1;
          break;
        case "text:p":
          if (cell) {
            (cell.paragraphs ??= []).push("");
            inParagraph = true;
          }
          break;
        case "text:s":
          if (cell && inParagraph) appendText(" ".repeat(Number(attributes["text:c"] ?? 1)));
          break;
        case "text:tab":
          if (cell && inParagraph) appendText("\t");
          break;
        case "text:line-break":
          if (cell && inParagraph) appendText("\n");
          break;
      }
    },
    close(name) {
      if (annotation > 0) {
        if (name === "office:annotation") annotation--;
        return;
      }
      switch (name) {
        case "text:p":
          inParagraph = false;
          break;
        case "table:table-cell":
        case "table:covered-table-cell":
          if (cell) {
            const repeat = cell.type ? Math.min(cell.repeat, MAX_REPEAT) : 0;
            // LibreOffice holds a boolean of a file as the formula TRUE() or a number in a boolean format: what it
            // shows (TRUE, FALSE) says which 1 and 0 are booleans. A 1 shown as 1 is a number (an .xls's recalculated
            // comparison in a General cell).
            const shown = cell.paragraphs?.join("\n") ?? "";
            const boolean = cell.type === "float" && /^(0|1)$/.test(cell.value) && /^(TRUE|FALSE|ИСТИНА|ЛОЖЬ)$/i.test(shown);
            for (let i = 0; i < repeat; i++) {
              const value =
                cell.type === "string" && cell.paragraphs ? cell.paragraphs.join("\n") : boolean ? String(cell.value === "1") : cell.value;
              rowCells.push([column + i, { type: (boolean ? "boolean" : cell.type) as LoCell["type"], value }]);
            }
            column += cell.repeat;
          }
          cell = null;
          break;
        case "table:table-row": {
          const repeat = rowCells.length ? Math.min(rowRepeat, MAX_REPEAT) : 0;
          for (let i = 0; i < repeat; i++) for (const [c, value] of rowCells) sheet!.cells.set(`${row + i},${c}`, value);
          row += rowRepeat;
          break;
        }
      }
    },
    text(text) {
      if (cell && inParagraph && annotation === 0) appendText(text);
    },
  });
  function appendText(text: string) {
    const paragraphs = cell!.paragraphs!;
    paragraphs[paragraphs.length - 1] += text;
  }
  parser.write(fs.readFileSync(file, "utf8"));
  parser.close();
  return sheets;
}
