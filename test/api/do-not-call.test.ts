import { eq, sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { contacts, databases, doNotCall, statuses } from "../../db/schema";
import { phoneKey } from "../../server/core/bases/phone";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { buildXlsx } from "../helpers/xlsx";

/** Issue 18, the do-not-call list: its normalisation, the turn, the import, the status flag, search and roles. */

let admin: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
});

beforeEach(async () => {
  await t.db.delete(doNotCall);
  await t.db.delete(databases);
  await t.db.update(statuses).set({ isDoNotCall: false });
});

const listed = async () => (await t.db.select().from(doNotCall).orderBy(doNotCall.id)).map((row) => ({ key: row.phoneKey, by: row.addedByLogin }));

const add = (phone: string, token = admin) => t.request.post("/api/v1/do-not-call").set(bearer(token)).send({ phone });

/** A manager on a topic over the given bases, re-working Перезвонить (or the given statuses); his first lead and presses. */
async function managerOn(databaseIds: number[], statusIds?: number[]) {
  const s = await statusesByText(t.db);
  const person = await createUser(t.db);
  const filter = await createFilterRow(t.db, {
    managerIds: [person.user.id],
    databaseIds,
    statusIds: statusIds ?? [s["Перезвонить"].id],
  });
  const auth = bearer(await t.tokenFor(person));
  const first = () => t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${person.user.id}`).set(auth);
  const press = (contactId: number, statusText = "Отказ") =>
    t.request.put("/api/v1/status/update-and-get-lead").set(auth).send({
      statusText,
      contactId,
      userId: person.user.id,
      passport: "",
      filterId: filter.id,
      clientInfo: "",
    });
  return { person, auth, filter, first, press };
}

describe("normalisation", () => {
  it("keys a number exactly as the import's dedup does, however it is written", async () => {
    const forms = ["050 123-45-67", "+380 (50) 123 45 67", "00380501234567", "380501234567", "+7 (916) 123-45-67"];
    const first = await add(forms[0]);
    expect(first.status).toBe(200);
    expect(first.body.phoneKey).toBe(phoneKey(forms[0], t.config.phoneRegion));
    // The same number in other writings is already there.
    for (const form of forms.slice(1, 4)) {
      const again = await add(form);
      expect(again.status, form).toBe(409);
      expect(again.body.message).toBe("Этот номер уже в списке «Не звонить»");
    }
    const other = await add(forms[4]);
    expect(other.body.phoneKey).toBe(phoneKey(forms[4], t.config.phoneRegion));

    // The import stores the very same key for the same written numbers.
    const res = await t.request
      .post("/api/v1/database/import")
      .set(bearer(admin))
      .field("name", "Ключи")
      .field("mappings", JSON.stringify(["name", "phone"]))
      .field("hasHeader", "false")
      .attach("file", await buildXlsx([["А", "0671112233"]]), "a.xlsx");
    expect(res.status).toBe(200);
    const [contact] = await t.db.select().from(contacts).where(eq(contacts.databaseId, res.body.id));
    expect((await add("+380 67 111 22 33")).body.phoneKey).toBe(contact.phoneKey);
  });

  it("refuses what is not a phone, with a Russian message", async () => {
    const res = await add("позвонить завтра");
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("«позвонить завтра» не похоже на номер телефона");
    expect((await add("")).body.message).toBe("Введите номер телефона");
    // Issue 41: digits that are no valid number of the region (UA) are refused, not listed as «+0501234».
    for (const phone of ["0501234", "8 (916) 123-45-67", "+1 555 0100"]) {
      const short = await add(phone);
      expect(short.status, phone).toBe(400);
      expect(short.body).toMatchObject({ error: "phone_invalid" });
      expect(short.body.message).toMatch(
        new RegExp(`^«${phone.replace(/[()+]/g, "\\$&")}» — неполный или несуществующий номер телефона \\(пример: 050 123 4567`),
      );
    }
    expect(await listed()).toEqual([]);
  });
});

describe("the turn never hands out a listed number", () => {
  it("not even when it is the only free contact (first lead and status press)", async () => {
    const { base, contacts: rows } = await createBase(t.db, { count: 2 });
    const m = await managerOn([base.id]);
    expect((await add(rows[1].phone)).status).toBe(200);
    const lead = await m.first();
    expect(lead.body.id).toBe(rows[0].id);
    // The only contact left is listed: the press answers no lead.
    const next = await m.press(rows[0].id);
    expect(next.status).toBe(200);
    expect(next.body).toBe("");
    // A base whose only contact is listed gives nothing at all.
    const { base: lone, contacts: loneRows } = await createBase(t.db, { count: 1 });
    await add(loneRows[0].phone);
    const other = await managerOn([lone.id]);
    expect((await other.first()).body).toBe("");
    const [row] = await t.db.select().from(contacts).where(eq(contacts.id, loneRows[0].id));
    expect(row.heldBy).toBeNull();
  });

  it("lets go of a held lead whose number is listed since, and hands out the next one", async () => {
    const { base, contacts: rows } = await createBase(t.db, { count: 2 });
    const m = await managerOn([base.id]);
    expect((await m.first()).body.id).toBe(rows[0].id);
    await add(rows[0].phone);
    expect((await m.first()).body.id).toBe(rows[1].id);
    const [row] = await t.db.select().from(contacts).where(eq(contacts.id, rows[0].id));
    expect(row.heldBy).toBeNull();
  });

  it("skips listed contacts in the re-work and expired-hold tiers too, in any base", async () => {
    const s = await statusesByText(t.db);
    const { base, contacts: rows } = await createBase(t.db, { count: 3 });
    const { base: second, contacts: copies } = await createBase(t.db, { count: 1 });
    const someone = await createUser(t.db);
    // rows[0]: a re-work status; rows[1]: an expired hold of another manager; rows[2]: worked for good.
    await t.db.update(contacts).set({ statusId: s["Перезвонить"].id, statusAt: new Date() }).where(eq(contacts.id, rows[0].id));
    await t.db
      .update(contacts)
      .set({ heldBy: someone.user.id, heldUntil: new Date(Date.now() - 60_000) })
      .where(eq(contacts.id, rows[1].id));
    await t.db.update(contacts).set({ statusId: s["Отказ"].id }).where(eq(contacts.id, rows[2].id));
    // The second base's contact has the same number as the re-work one.
    await t.db.update(contacts).set({ phone: rows[0].phone, phoneKey: rows[0].phoneKey }).where(eq(contacts.id, copies[0].id));
    const m = await managerOn([base.id, second.id]);
    await add(rows[0].phone);
    await add(rows[1].phone);
    expect((await m.first()).body).toBe("");
    // Taken off the list, they are handed out again.
    const [item] = (await t.request.get("/api/v1/do-not-call").set(bearer(admin))).body.items;
    expect((await t.request.delete(`/api/v1/do-not-call/${item.id}`).set(bearer(admin))).status).toBe(200);
    expect((await m.first()).body.id).toBe(rows[1].id);
  });
});

describe("import", () => {
  it("leaves listed numbers out, counts them in the report, and refuses a file of only listed numbers", async () => {
    await add("050 111 22 33");
    await add("+380 67 444 55 66");
    const file = await buildXlsx([
      ["ФИО", "Телефон"],
      ["Можно", "0631234567"],
      ["Нельзя раз", "+380501112233"],
      ["Нельзя два", "067-444-55-66"],
    ]);
    const res = await t.request
      .post("/api/v1/database/import")
      .set(bearer(admin))
      .field("name", "С запретами")
      .field("mappings", JSON.stringify(["name", "phone"]))
      .attach("file", file, "a.xlsx");
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(1);
    expect(res.body.doNotCall).toBe(2);
    const names = (await t.db.select().from(contacts).where(eq(contacts.databaseId, res.body.id))).map((c) => c.name);
    expect(names).toEqual(["Можно"]);

    const only = await t.request
      .post("/api/v1/database/import")
      .set(bearer(admin))
      .field("name", "Только запреты")
      .field("mappings", JSON.stringify(["name", "phone"]))
      .attach(
        "file",
        await buildXlsx([
          ["ФИО", "Телефон"],
          ["Нельзя", "0501112233"],
        ]),
        "b.xlsx",
      );
    expect(only.status).toBe(409);
    expect(only.body.message).toBe("Ничего не импортировано: все контакты файла — номера из списка «Не звонить» (1). База не создана");
    expect(await t.db.select().from(databases).where(eq(databases.name, "Только запреты"))).toEqual([]);
  });
});

describe("the do-not-call status flag", () => {
  it("a press lists the number with the manager as the one who added it; it is never handed out again in any base", async () => {
    const s = await statusesByText(t.db);
    const flag = await t.request.put(`/api/v1/status/${s["Отказ"].id}/do-not-call`).set(bearer(admin));
    expect(flag.status).toBe(200);
    expect(flag.body.isDoNotCall).toBe(true);
    const { base, contacts: rows } = await createBase(t.db, { count: 1 });
    const { base: second, contacts: copies } = await createBase(t.db, { count: 1 });
    // The same person in another base.
    await t.db.update(contacts).set({ phone: rows[0].phone, phoneKey: rows[0].phoneKey }).where(eq(contacts.id, copies[0].id));
    // The topic works the flagged status again: without the flag the pressed contact would come straight back.
    const m = await managerOn([base.id, second.id], [s["Отказ"].id]);
    expect((await m.first()).body.id).toBe(rows[0].id);
    const next = await m.press(rows[0].id);
    expect(next.status).toBe(200);
    expect(next.body).toBe("");
    expect(await listed()).toEqual([{ key: rows[0].phoneKey, by: m.person.login }]);
    const [item] = (await t.request.get("/api/v1/do-not-call").set(bearer(admin))).body.items;
    expect(item).toMatchObject({ phone: rows[0].phone, addedBy: m.person.login });
    // Not on a later turn either, nor for another manager.
    expect((await m.first()).body).toBe("");
    expect((await (await managerOn([second.id])).first()).body).toBe("");
  });

  it("a contact with several numbers in its phone field gets all of them listed", async () => {
    const s = await statusesByText(t.db);
    await t.request.put(`/api/v1/status/${s["Отказ"].id}/do-not-call`).set(bearer(admin));
    const { base, contacts: rows } = await createBase(t.db, { count: 1 });
    const phone = "050 200 00 01, 067 765 43 21";
    const region = t.config.phoneRegion;
    await t.db
      .update(contacts)
      .set({ phone, phoneKey: phoneKey(phone, region) })
      .where(eq(contacts.id, rows[0].id));
    const m = await managerOn([base.id]);
    expect((await m.first()).body.id).toBe(rows[0].id);
    expect((await m.press(rows[0].id)).status).toBe(200);
    const keys = (await listed()).map((l) => l.key);
    expect(keys).toContain(phoneKey("050 200 00 01", region));
    expect(keys).toContain(phoneKey("067 765 43 21", region));
    // The contact's own key too, so the contact itself is matched whatever its key is.
    expect(keys).toContain(phoneKey(phone, region));
  });
});

describe("listed contacts leave the free index", () => {
  it("are marked when their number is listed, by any way of listing, and unmarked when it is removed", async () => {
    const { base, contacts: rows } = await createBase(t.db, { count: 30 });
    const marked = async () =>
      (await t.db.select({ id: contacts.id }).from(contacts).where(eq(contacts.listed, true)).orderBy(contacts.id)).map((r) => r.id);
    // A long run at the head of the base, pasted at once.
    const paste = await t.request
      .post("/api/v1/do-not-call/paste")
      .set(bearer(admin))
      .send({
        text: rows
          .slice(0, 25)
          .map((r) => r.phone)
          .join("\n"),
      });
    expect(paste.status).toBe(200);
    expect(await marked()).toEqual(rows.slice(0, 25).map((r) => r.id));
    const m = await managerOn([base.id]);
    expect((await m.first()).body.id).toBe(rows[25].id);
    // Removed from the list, the first contact is free again and comes after the one now held.
    const items = (await t.request.get("/api/v1/do-not-call?q=" + encodeURIComponent(rows[0].phone)).set(bearer(admin))).body.items;
    expect(items).toHaveLength(1);
    expect((await t.request.delete(`/api/v1/do-not-call/${items[0].id}`).set(bearer(admin))).status).toBe(200);
    expect(await marked()).toEqual(rows.slice(1, 25).map((r) => r.id));
    expect((await m.press(rows[25].id)).body.id).toBe(rows[0].id);
  });

  it("a press that lists a second number never hands out, in that very press, another base's contact with it", async () => {
    const s = await statusesByText(t.db);
    await t.request.put(`/api/v1/status/${s["Отказ"].id}/do-not-call`).set(bearer(admin));
    const region = t.config.phoneRegion;
    const { base, contacts: rows } = await createBase(t.db, { count: 1 });
    const { base: second, contacts: others } = await createBase(t.db, { count: 2 });
    const phone = "050 200 00 01, 067 765 43 21";
    await t.db
      .update(contacts)
      .set({ phone, phoneKey: phoneKey(phone, region) })
      .where(eq(contacts.id, rows[0].id));
    // The next free contact in the topic's order has the second number alone.
    await t.db
      .update(contacts)
      .set({ phone: "0677654321", phoneKey: phoneKey("0677654321", region) })
      .where(eq(contacts.id, others[0].id));
    const m = await managerOn([base.id, second.id]);
    expect((await m.first()).body.id).toBe(rows[0].id);
    const next = await m.press(rows[0].id);
    expect(next.status).toBe(200);
    expect(next.body.id).toBe(others[1].id);
    const [skipped] = await t.db.select().from(contacts).where(eq(contacts.id, others[0].id));
    expect(skipped.heldBy).toBeNull();
    expect(skipped.listed).toBe(true);
  });
});

describe("search", () => {
  it("marks a contact whose number is listed", async () => {
    const { contacts: rows } = await createBase(t.db, { count: 2, prefix: "Искомый" });
    await add(rows[0].phone);
    const res = await t.request.get("/api/v1/database/search?term=Искомый").set(bearer(admin));
    expect(res.status).toBe(200);
    const marks = Object.fromEntries(res.body.map((hit: { data: { id: number; doNotCall: boolean } }) => [hit.data.id, hit.data.doNotCall]));
    expect(marks).toEqual({ [rows[0].id]: true, [rows[1].id]: false });
  });
});

describe("the list", () => {
  it("paste reports added, already there and invalid; a file (text or xlsx) too; search and pages", async () => {
    await add("0501112233");
    const paste = await t.request
      .post("/api/v1/do-not-call/paste")
      .set(bearer(admin))
      .send({ text: "050 111 22 33\n0672223344\n\nне номер\n+380672223344\n0933334455" });
    expect(paste.status).toBe(200);
    expect(paste.body).toEqual({ added: 2, already: 2, invalid: 1, invalidSamples: ["не номер"] });

    const text = await t.request
      .post("/api/v1/do-not-call/import")
      .set(bearer(admin))
      .attach("file", Buffer.from("\uFEFF0631111111\r\n0631111112\r\n0933334455\r\nабв\r\n"), "list.txt");
    expect(text.status).toBe(200);
    expect(text.body).toEqual({ added: 2, already: 1, invalid: 1, invalidSamples: ["абв"] });

    const sheet = await t.request
      .post("/api/v1/do-not-call/import")
      .set(bearer(admin))
      .attach(
        "file",
        await buildXlsx([
          ["Телефон", "Примечание"],
          ["0991000001", "просил не звонить"],
          [380991000002, ""],
        ]),
        "dnc.xlsx",
      );
    expect(sheet.status).toBe(200);
    expect(sheet.body).toEqual({ added: 2, already: 0, invalid: 0, invalidSamples: [] });

    const all = await t.request.get("/api/v1/do-not-call").set(bearer(admin));
    expect(all.body.total).toBe(7);
    const found = await t.request.get(`/api/v1/do-not-call?q=${encodeURIComponent("+380 63 111 11 12")}`).set(bearer(admin));
    expect(found.body.items.map((i: { phoneKey: string }) => i.phoneKey)).toEqual(["380631111112"]);
    const part = await t.request.get("/api/v1/do-not-call?q=99100").set(bearer(admin));
    expect(part.body.total).toBe(2);

    await t.request
      .post("/api/v1/do-not-call/paste")
      .set(bearer(admin))
      .send({
        text: Array.from({ length: 120 }, (_, i) => `0970000${String(i).padStart(3, "0")}`).join("\n"),
      });
    const page3 = await t.request.get("/api/v1/do-not-call?page=3").set(bearer(admin));
    expect(page3.body).toMatchObject({ total: 127, page: 3, pages: 3 });
    expect(page3.body.items).toHaveLength(27);
    const [{ n }] = await queryRows<{ n: string }>(t.db, sql`select count(distinct phone_key) as n from do_not_call`);
    expect(Number(n)).toBe(127);
  });

  it("a manager can neither read nor change the list, nor flag a status: 403", async () => {
    const person = await createUser(t.db);
    const auth = bearer(await t.tokenFor(person));
    const item = await add("0501112233");
    const s = await statusesByText(t.db);
    const answers = await Promise.all([
      t.request.get("/api/v1/do-not-call").set(auth),
      t.request.post("/api/v1/do-not-call").set(auth).send({ phone: "0672223344" }),
      t.request.post("/api/v1/do-not-call/paste").set(auth).send({ text: "0672223344" }),
      t.request.post("/api/v1/do-not-call/import").set(auth).attach("file", Buffer.from("0672223344\n"), "a.txt"),
      t.request.delete(`/api/v1/do-not-call/${item.body.id}`).set(auth),
      t.request.put(`/api/v1/status/${s["Отказ"].id}/do-not-call`).set(auth),
    ]);
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(await listed()).toEqual([{ key: "380501112233", by: "admin" }]);
  });
});
