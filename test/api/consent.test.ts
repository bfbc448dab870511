import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { calls, contacts, users } from "../../db/schema";
import { readConsentCell } from "../../server/core/bases/consent-cell";
import { ADMIN, bearer, createUser, pageSessionCookie, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { importWithoutJavaScript } from "../helpers/import-pages";
import { createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Consent to calls (issue 43): a base's «Согласие на звонки» column (a date, or yes/no) is the contact's consent;
 * a topic «только с согласием» hands out and lets the proxy call only clients who gave it (38-FZ art. 18).
 */
const SECRET = "kamailio-shares-this-secret-0123";
let adminToken: string;
const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET }, web: true });
beforeAll(async () => {
  adminToken = await t.adminToken();
});

const ROWS: Array<[string, string, string]> = [
  ["Без согласия", "+7 495 100-00-01", "нет"],
  ["Согласие да", "+7 495 100-00-02", "Да"],
  ["Пустая ячейка", "+7 495 100-00-03", ""],
  ["Согласие с датой", "+7 495 100-00-04", "15.01.2026"],
  ["Непонятно", "+7 495 100-00-05", "потом"],
];

async function importBase(name: string) {
  const file = Buffer.from(csvText([["ФИО", "Телефон", "Согласие на звонки"], ...ROWS]));
  const preview = await t.request.post("/api/v1/database/preview").set(bearer(adminToken)).attach("file", file, "base.csv");
  expect(preview.body.columns.map((c: { suggested: string }) => c.suggested)).toEqual(["name", "phone", "consent"]);
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone", "consent"]))
    .attach("file", file, "base.csv");
  expect(res.status).toBe(200);
  const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, res.body.id)).orderBy(contacts.id);
  return { body: res.body, baseId: res.body.id as number, byName: Object.fromEntries(rows.map((r) => [r.name, r])) };
}

describe("the «Согласие на звонки» cell", () => {
  it("reads a date, yes and no; anything else is unreadable", () => {
    const now = new Date("2026-11-29T06:00:00Z");
    expect(readConsentCell("15.01.2026", now)).toEqual({ readable: true, since: new Date("2026-01-15T00:00:00Z") });
    expect(readConsentCell("2026-01-15 10:30", now)).toEqual({ readable: true, since: new Date("2026-01-15T00:00:00Z") });
    expect(readConsentCell("15.01.26", now)).toEqual({ readable: true, since: new Date("2026-01-15T00:00:00Z") });
    expect(readConsentCell(" да ", now)).toEqual({ readable: true, since: now });
    expect(readConsentCell("YES", now)).toEqual({ readable: true, since: now });
    expect(readConsentCell("нет", now)).toEqual({ readable: true, since: null });
    expect(readConsentCell("", now)).toEqual({ readable: true, since: null });
    expect(readConsentCell("31.02.2026", now)).toEqual({ readable: false });
    expect(readConsentCell("потом", now)).toEqual({ readable: false });
  });
});

describe("a topic «только с согласием»", () => {
  it("imports the column, hands out only clients with consent, and the proxy refuses the others (403 No Consent)", async () => {
    const { body, baseId, byName } = await importBase("Реклама");
    expect(body.unreadableConsents).toBe(1);
    expect(byName["Согласие да"].consentAt).not.toBeNull();
    expect(byName["Согласие с датой"].consentAt?.toISOString()).toBe("2026-01-15T00:00:00.000Z");
    for (const name of ["Без согласия", "Пустая ячейка", "Непонятно"]) expect(byName[name].consentAt).toBeNull();

    const s = await statusesByText(t.db);
    const manager = await createUser(t.db, { login: "consent-1", sipLogin: "8901", sipPassword: "sip-8901" });
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [baseId], statusIds: [s["Перезвонить"].id] });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const auth = bearer(await t.tokenFor(manager));
    const saved = await t.request
      .put(`/api/v1/filters/${filter.id}`)
      .set(bearer(adminToken))
      .send({ name: "Реклама", managers: [manager.user.id], databases: [baseId], statuses: [s["Перезвонить"].id], requiresConsent: true });
    expect(saved.status).toBe(200);
    expect(saved.body.requiresConsent).toBe(true);

    const given: string[] = [];
    for (let i = 0; i < ROWS.length; i++) {
      const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(auth);
      expect(res.status).toBe(200);
      if (!res.body) break;
      given.push(res.body.name);
      await t.db.update(contacts).set({ heldBy: null, heldUntil: null, statusId: s["Отказ"].id }).where(eq(contacts.id, res.body.id));
    }
    expect(given).toEqual(["Согласие да", "Согласие с датой"]);

    const admit = (number: string, id: string) =>
      t.request
        .post("/api/v1/telephony/calls")
        .type("form")
        .set("X-Sip-Auth-Secret", SECRET)
        .send({ login: "8901", number, sipCallId: `${id}@browser` });
    const refused = await admit(byName["Без согласия"].phoneKey, "consent-1");
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/^id=\d+;sip=403\nNo Consent$/);
    const [row] = await t.db
      .select()
      .from(calls)
      .where(eq(calls.id, Number(/id=(\d+)/.exec(refused.text)![1])));
    expect(row.reason).toBe("У клиента нет согласия на звонки");
    // A number no client of the topic has: no consent is known either.
    expect((await admit("+74951009999", "consent-2")).text).toMatch(/\nNo Consent$/);
    expect((await admit(byName["Согласие да"].phoneKey, "consent-3")).status).toBe(200);

    // Switched off, the topic calls everyone again.
    await t.request
      .put(`/api/v1/filters/${filter.id}`)
      .set(bearer(adminToken))
      .send({ name: "Реклама", managers: [manager.user.id], databases: [baseId], statuses: [s["Перезвонить"].id], requiresConsent: false });
    expect((await admit(byName["Без согласия"].phoneKey, "consent-4")).status).toBe(200);
  });
});

describe("the «Согласие на звонки» column without JavaScript", () => {
  it("is offered for the column, and the report counts the cells it could not read", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const file = Buffer.from(csvText([["ФИО", "Телефон", "Согласие на звонки"], ...ROWS]));
    const { preview, saved } = await importWithoutJavaScript(t, cookie, "Согласие без JS", file, ["name", "phone", "consent"]);
    expect(preview.status).toBe(200);
    // The page suggests the column from its header, as the API does.
    expect(preview.text).toContain('<option value="consent" selected="">Согласие на звонки</option>');
    expect(saved!.status).toBe(200);
    // «потом» is neither a date nor yes/no: counted, and that client has no consent.
    expect(saved!.text).toContain("Согласие на звонки не распознано (ни дата, ни «да»/«нет»), считается, что его нет:");
    expect(saved!.text).toMatch(/data-testid="unreadable-consents-count">1</);
    const [base] = await t.db.query.databases.findMany({ where: (d, { eq }) => eq(d.name, "Согласие без JS") });
    const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, base.id));
    const consent = Object.fromEntries(rows.map((r) => [r.name, r.consentAt === null ? null : r.consentAt.toISOString().slice(0, 10)]));
    expect(consent).toMatchObject({ "Без согласия": null, "Пустая ячейка": null, Непонятно: null, "Согласие с датой": "2026-01-15" });
    expect(consent["Согласие да"]).not.toBeNull();
  });
});
