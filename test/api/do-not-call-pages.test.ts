import { eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { doNotCall, statuses } from "../../db/schema";
import { ADMIN, formBody, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { createBase, statusesByText } from "../helpers/leads";
import { buildXlsx } from "../helpers/xlsx";

/** Issue 18: /donotcall, the /edit-statuses flag and the /searchlead mark, as plain form posts (no JavaScript). */

let cookie: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  cookie = await pageSessionCookie(t, ADMIN);
});

beforeEach(async () => {
  await t.db.delete(doNotCall);
  await t.db.update(statuses).set({ isDoNotCall: false });
});

const post = (path: string, fields: Record<string, string>) =>
  t.request
    .post(path)
    .set("Cookie", cookie)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Accept-Encoding", "identity")
    .set("Content-Type", "application/x-www-form-urlencoded")
    .send(formBody(fields));

const rowsOf = (html: string) => [...html.matchAll(/data-testid="dnc-row"[^>]*>\s*<td[^>]*>([^<]*)</g)].map((m) => m[1]);

describe("/donotcall without JavaScript", () => {
  it("adds one, pastes many with a report, imports a file, searches, and removes after the question", async () => {
    const added = await post("/donotcall", { intent: "add", phone: "050 111 22 33" });
    expect(added.status).toBe(302);
    const again = await post("/donotcall", { intent: "add", phone: "+380501112233" });
    expect(again.status).toBe(409);
    expect(again.text).toContain("Этот номер уже в списке «Не звонить»");

    const pasted = await post("/donotcall", { intent: "paste", text: "0501112233\n0672223344\nне номер" });
    expect(pasted.status).toBe(200);
    expect(pasted.text).toMatch(/data-testid="dnc-added">1</);
    expect(pasted.text).toMatch(/data-testid="dnc-already">1</);
    expect(pasted.text).toMatch(/data-testid="dnc-invalid">1</);

    const file = await t.request
      .post("/donotcall")
      .set("Cookie", cookie)
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .set("Accept-Encoding", "identity")
      .field("intent", "import")
      .attach("file", await buildXlsx([["Номер"], ["0931234567"]]), "список.xlsx");
    expect(file.status).toBe(200);
    expect(file.text).toMatch(/data-testid="dnc-added">1</);

    const page = await getPage(t, "/donotcall", cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Номеров в списке: 3");
    expect(rowsOf(page.text).sort()).toEqual(["050 111 22 33", "0672223344", "0931234567"]);
    expect(page.text).toContain(ADMIN.login);

    const found = await getPage(t, `/donotcall?q=${encodeURIComponent("+380 67 222 33 44")}`, cookie);
    expect(rowsOf(found.text)).toEqual(["0672223344"]);

    const [item] = await t.db.select().from(doNotCall).where(eq(doNotCall.phone, "0672223344"));
    const question = await getPage(t, `/donotcall?delete=${item.id}`, cookie);
    expect(question.text).toContain("Убрать номер из списка?");
    expect(await t.db.select().from(doNotCall)).toHaveLength(3);
    const removed = await post("/donotcall", { intent: "delete", id: String(item.id) });
    expect(removed.status).toBe(302);
    expect(rowsOf((await getPage(t, "/donotcall", cookie)).text).sort()).toEqual(["050 111 22 33", "0931234567"]);
  });

  it("the status flag is a toggle on /edit-statuses, and /searchlead marks a listed contact", async () => {
    const s = await statusesByText(t.db);
    expect((await post("/edit-statuses", { intent: "do-not-call", id: String(s["Отказ"].id) })).status).toBe(302);
    expect((await statusesByText(t.db))["Отказ"].isDoNotCall).toBe(true);
    const statusesPage = await getPage(t, "/edit-statuses", cookie);
    expect(statusesPage.text).toContain("Добавить в список «Не звонить»");

    const { contacts } = await createBase(t.db, { count: 2, prefix: "Отметка" });
    await post("/donotcall", { intent: "add", phone: contacts[0].phone });
    const search = await getPage(t, `/searchlead?term=${encodeURIComponent(contacts[0].phone)}`, cookie);
    // The mark is an SVG icon and the words (no emoji: Debian's Chromium has no colour emoji font).
    expect(search.text).toMatch(/data-testid="do-not-call-mark"[^>]*><svg[^]*?<\/svg>Не звонить<\/span>/);
    const other = await getPage(t, `/searchlead?term=${encodeURIComponent(contacts[1].phone)}`, cookie);
    expect(other.text).toContain("Отметка");
    expect(other.text).not.toContain("do-not-call-mark");
  });
});
