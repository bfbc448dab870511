import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { databases } from "../../db/schema";
import { importBase } from "../../server/core/bases/import";
import { ADMIN, createUser, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";

/**
 * The import page's count while a save is in flight: after each batch the import says how many data rows it has
 * read and written, and GET /importbase/progress answers it to the admin who started the import.
 */

let adminCookie: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  adminCookie = await pageSessionCookie(t, ADMIN);
});

/** A .csv of `rows` contacts with a header row. */
function bigCsv(rows: number): Buffer {
  const lines = [["ФИО", "Телефон"]];
  for (let i = 0; i < rows; i++) lines.push([`Клиент ${i}`, `067${String(i).padStart(7, "0")}`]);
  return Buffer.from(csvText(lines, ";"));
}

const pagePost = (cookie: string) =>
  t.request
    .post("/importbase/upload")
    .set("Cookie", cookie)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Accept-Encoding", "identity");

const progressOf = async (uploadId: string, cookie = adminCookie) => {
  const res = await getPage(t, `/importbase/progress?uploadId=${encodeURIComponent(uploadId)}`, cookie);
  return { status: res.status, rows: res.status === 200 ? (JSON.parse(res.text) as { rows: number | null }).rows : undefined };
};

describe("an import's progress", () => {
  it("is told after every batch, rising to the file's data rows", async () => {
    await t.db.delete(databases);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "import-progress-")), "база.csv");
    fs.writeFileSync(file, bigCsv(12_000));
    const [admin] = await t.db.query.users.findMany({ where: (u, { eq }) => eq(u.login, ADMIN.login) });
    const told: number[] = [];
    const result = await importBase(
      t.db,
      { id: admin.id, login: admin.login, isAdmin: true },
      { name: "По партиям", mappings: JSON.stringify(["name", "phone"]), file: { path: file, name: "база.csv" } },
      { phoneRegion: "UA", onProgress: (rows) => told.push(rows) },
    );
    fs.rmSync(path.dirname(file), { recursive: true });
    expect(result.imported).toBe(12_000);
    expect(told.length).toBeGreaterThanOrEqual(3);
    expect(told).toEqual([...told].sort((a, b) => a - b));
    expect(told.at(-1)).toBe(12_000);
  });

  it("is shown on /importbase/progress to the admin who saves, while the save is in flight, then no more", async () => {
    await t.db.delete(databases);
    const otherAdmin = await pageSessionCookie(t, await createUser(t.db, { isAdmin: true }));
    const manager = await pageSessionCookie(t, await createUser(t.db));
    const preview = await pagePost(adminCookie).field("intent", "preview").field("name", "С прогрессом").attach("file", bigCsv(40_000), "база.csv");
    expect(preview.status).toBe(200);
    const { uploadId, fileName } = preview.body as { uploadId: string; fileName: string };
    expect(uploadId).toBeTruthy();

    let saved = false;
    const saving = pagePost(adminCookie)
      .field("intent", "import")
      .field("name", "С прогрессом")
      .field("uploadId", uploadId)
      .field("fileName", fileName)
      .field("mappings", JSON.stringify(["name", "phone"]))
      .then((res) => {
        saved = true;
        return res;
      });
    const seen: number[] = [];
    // What another admin was told while, before and after his question, the import was the first admin's to see.
    let othersView: unknown = "not asked";
    while (!saved) {
      const { status, rows } = await progressOf(uploadId);
      expect(status).toBe(200);
      if (!saved && typeof rows === "number") seen.push(rows);
      if (typeof rows === "number" && othersView === "not asked") {
        const other = await progressOf(uploadId, otherAdmin);
        if (typeof (await progressOf(uploadId)).rows === "number") othersView = other;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const res = await saving;
    expect(res.status).toBe(200);
    expect(res.body.step).toBe("done");
    expect(res.body.result.imported).toBe(40_000);
    // Between batches the page's question is answered: some count between the first batch and the whole file.
    expect(seen.some((rows) => rows > 0 && rows < 40_000)).toBe(true);
    expect((await progressOf(uploadId)).rows).toBeNull();
    // The count is the starting admin's: another admin is told nothing, a manager may not ask, a guest signs in.
    expect(othersView).toEqual({ status: 200, rows: null });
    expect((await progressOf(uploadId, manager)).status).toBe(403);
    expect((await getPage(t, `/importbase/progress?uploadId=${uploadId}`)).headers.location).toBe("/auth");
  });
});

/**
 * Issue 31: a junk file was refused only after its whole upload. A body that starts with a file part of junk
 * and never ends must be answered from its first bytes; one that declares more than the limit, before any.
 * Answers the status and the message, or null when 5 s pass without an answer (the server waits for the rest).
 */
async function answerToEndlessUpload(url: string, headers: Record<string, string>, filename: string, declared: number) {
  const http = await import("node:http");
  const boundary = "----issue31";
  const start = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="intent"\r\n\r\npreview\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nМусор\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const junk = Buffer.alloc(256 * 1024, 0x9c);
  return new Promise<{ status: number; message: string } | null>((resolve) => {
    const request = http.request(url, {
      method: "POST",
      headers: { ...headers, "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": String(declared) },
    });
    const timer = setTimeout(() => {
      request.destroy();
      resolve(null);
    }, 5000);
    request.on("response", (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => {
        clearTimeout(timer);
        request.destroy();
        const body = JSON.parse(text) as { message?: string; detail?: string };
        resolve({ status: res.statusCode ?? 0, message: body.detail ?? body.message ?? "" });
      });
    });
    request.on("error", () => {});
    // The form's head and the file's first 256 KB of a declared 10 MB or more; the rest never comes.
    request.write(start);
    request.write(junk);
  });
}

describe("an upload that cannot be a base is refused from its first bytes (issue 31)", () => {
  it("on the import page and the API: junk before its end, an oversized body before its first byte", async () => {
    const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const token = await t.adminToken();
    const page = { url: `${address}/importbase/upload`, headers: { Cookie: adminCookie, Origin: address } };
    const api = { url: `${address}/api/v1/database/preview`, headers: { Authorization: `Bearer ${token}` } };
    for (const { url, headers } of [page, api]) {
      expect(await answerToEndlessUpload(url, headers, "мусор.bin", 10 * 1024 * 1024), url).toEqual({
        status: 400,
        message: "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv",
      });
      expect(await answerToEndlessUpload(url, headers, "огромная.xlsx", 60 * 1024 * 1024), url).toEqual({
        status: 400,
        message: "Файл слишком большой: не более 50 МБ",
      });
    }
    // The bodies left unsent would hold the server's close until its timeouts.
    t.app.server.closeAllConnections();
  });
});
