import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, filters, users } from "../../db/schema";
import { type CallingHours } from "../../server/core/filters/calling-hours";
import { ADMIN, bearer, createUser, pageSessionCookie, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { importWithoutJavaScript } from "../helpers/import-pages";
import { createFilterRow, statusesByText } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * A base's «Часовой пояс» column (issue 29, decision 062): a readable cell (an IANA name, a whole-hour UTC offset)
 * is the contact's zone for the calling hours instead of the phone's; an empty or unreadable one falls back to the
 * phone's zone, and the import report counts the unreadable ones.
 */
let adminToken: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  adminToken = await t.adminToken();
});

/** Moscow numbers (+7 495), each a distinct phone. */
const moscow = (n: number) => `+7 495 123-45-${String(n).padStart(2, "0")}`;
const VLADIVOSTOK = "+7 423 222-33-44";

/** A window open now in `zone` (an hour either side): Vladivostok, seven hours ahead of Moscow, is outside it. */
const openIn = (zone: string): CallingHours => ({
  from: clockIn(zone, -60),
  until: clockIn(zone, 60),
  days: [1, 2, 3, 4, 5, 6, 7],
  timeZone: "Europe/Kyiv",
});

const ROWS: Array<[string, string, string]> = [
  ["Владивосток по столбцу", moscow(1), "Asia/Vladivostok"],
  ["Москва по столбцу", VLADIVOSTOK, "Europe/Moscow"],
  ["Пустая ячейка", moscow(2), ""],
  ["Непонятная ячейка", moscow(3), "МСК+7"],
  ["Полчаса", moscow(4), "UTC+5:30"],
  ["Смещение UTC", moscow(5), "UTC+10"],
  ["Смещение с минутами", moscow(6), "+05:00"],
  ["Смещение GMT", moscow(7), "gmt-3"],
  ["Имя строчными", moscow(8), "asia/vladivostok"],
  ["Ноль", moscow(9), "UTC"],
];
const file = () => Buffer.from(csvText([["ФИО", "Телефон", "Часовой пояс"], ...ROWS]));

async function importThroughApi(name: string) {
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone", "timeZone"]))
    .attach("file", file(), "base.csv");
  expect(res.status).toBe(200);
  const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, res.body.id));
  return { body: res.body, baseId: res.body.id as number, byName: Object.fromEntries(rows.map((r) => [r.name, r])) };
}

describe("a base's «Часовой пояс» column", () => {
  it("is suggested from its header, and each readable cell is the contact's zone instead of the phone's", async () => {
    const preview = await t.request.post("/api/v1/database/preview").set(bearer(adminToken)).attach("file", file(), "base.csv");
    expect(preview.status).toBe(200);
    expect(preview.body.columns.map((c: { suggested: string }) => c.suggested)).toEqual(["name", "phone", "timeZone"]);

    const { body, byName } = await importThroughApi("Пояса из столбца");
    expect(body.imported).toBe(ROWS.length);
    // «МСК+7» and a half-hour offset are not read; an empty cell is no warning.
    expect(body.unreadableZones).toBe(2);
    expect(byName["Владивосток по столбцу"].tz).toBe("Asia/Vladivostok");
    expect(byName["Москва по столбцу"].tz).toBe("Europe/Moscow");
    expect(byName["Пустая ячейка"].tz).toBe("Europe/Moscow");
    expect(byName["Непонятная ячейка"].tz).toBe("Europe/Moscow");
    expect(byName["Полчаса"].tz).toBe("Europe/Moscow");
    // POSIX names turn the sign: UTC+10 is Etc/GMT-10.
    expect(byName["Смещение UTC"].tz).toBe("Etc/GMT-10");
    expect(byName["Смещение с минутами"].tz).toBe("Etc/GMT-5");
    expect(byName["Смещение GMT"].tz).toBe("Etc/GMT+3");
    expect(byName["Имя строчными"].tz).toBe("Asia/Vladivostok");
    expect(byName["Ноль"].tz).toBe("UTC");
  });

  it("decides the claim: a Moscow number mapped to Vladivostok waits while Moscow is inside its hours", async () => {
    const { baseId, byName } = await importThroughApi("Пояса для выдачи");
    const s = await statusesByText(t.db);
    const manager = await createUser(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [baseId], statusIds: [] });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const hours = openIn("Europe/Moscow");
    await t.db
      .update(filters)
      .set({ callsFrom: hours.from, callsUntil: hours.until, callDays: hours.days, timeZone: hours.timeZone })
      .where(eq(filters.id, filter.id));
    const auth = bearer(await t.tokenFor(manager));

    const given: string[] = [];
    for (let i = 0; i < ROWS.length + 1; i++) {
      const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(auth);
      expect(res.status).toBe(200);
      if (!res.body) break;
      given.push(res.body.name);
      // Worked: a status outside the topic's re-work list, so the next claim hands out another contact.
      await t.db.update(contacts).set({ heldBy: null, heldUntil: null, statusId: s["Отказ"].id }).where(eq(contacts.id, res.body.id));
    }
    // Inside Moscow's hours: the Vladivostok number mapped to Moscow, and the fallbacks to the phone's zone.
    expect(given).toEqual(expect.arrayContaining(["Москва по столбцу", "Пустая ячейка", "Непонятная ячейка", "Полчаса"]));
    // Never the Moscow numbers the column puts in Vladivostok (UTC+10 too); UTC+5, UTC−3 and UTC are hours away.
    for (const outside of ["Владивосток по столбцу", "Имя строчными", "Смещение UTC", "Смещение с минутами", "Смещение GMT", "Ноль"]) {
      expect(given).not.toContain(outside);
    }
    expect(byName["Владивосток по столбцу"].heldBy).toBeNull();
  });

  it("works with JavaScript off: the page's column choice and the report's Russian count", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const { preview, saved } = await importWithoutJavaScript(t, cookie, "Пояса без JS", file(), ["name", "phone", "timeZone"]);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('<option value="timeZone" selected="">Часовой пояс</option>');
    expect(preview.text).toContain("целое смещение от UTC (UTC+5, GMT+3, +05:00)");
    expect(saved!.status).toBe(200);
    expect(saved!.text).toContain("Часовой пояс не распознан, взят по номеру телефона");
    expect(saved!.text).toMatch(/data-testid="unreadable-zones-count">2</);
    const [base] = await t.db.query.databases.findMany({ where: (d, { eq }) => eq(d.name, "Пояса без JS") });
    const [vlad] = await t.db
      .select()
      .from(contacts)
      .where(eq(contacts.databaseId, base.id))
      .then((rows) => rows.filter((r) => r.name === "Владивосток по столбцу"));
    expect(vlad.tz).toBe("Asia/Vladivostok");
  });
});
