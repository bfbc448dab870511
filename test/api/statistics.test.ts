import { beforeAll, describe, expect, it } from "vitest";
import { getStatistics } from "../../server/core/statistics/statistics";
import { kyivDate, kyivDay } from "../../common/business-time";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, pressStatus } from "../helpers/money";

let admin: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
});

const ADMIN_ACTOR = { id: 1, login: "admin", isAdmin: true };

describe("GET /api/v1/statistics", () => {
  it("counts today in Kyiv: a second before midnight is yesterday, midnight is today", async () => {
    const { start } = kyivDay(new Date());
    const yesterday = new Date(start.getTime() - 1000);
    const today = start;
    const olga = await createUser(t.db, { displayName: "Ольга" });
    const petr = await createUser(t.db, { displayName: "", login: "petr" });
    const quiet = await createUser(t.db, { displayName: "Тихий" });
    await createBase(t.db, "Вчерашняя", 1000, yesterday);
    await createBase(t.db, "Сегодняшняя", 250, today);
    await createBase(t.db, "Ещё одна", 50);

    // Yesterday: none of it counts today.
    await pressStatus(t.db, { userId: olga.user.id, statusText: "Заявка", isReport: true, at: yesterday });
    await pressStatus(t.db, { userId: olga.user.id, statusText: "Отказ", at: yesterday });
    // Today.
    for (let i = 0; i < 3; i++) await pressStatus(t.db, { userId: olga.user.id, statusText: "Отказ", at: today });
    await pressStatus(t.db, { userId: olga.user.id, statusText: "Заявка", isReport: true });
    await pressStatus(t.db, { userId: petr.user.id, statusText: "Перезвонить" });
    await pressStatus(t.db, { userId: petr.user.id, statusText: "Заявка", isReport: true });
    await pressStatus(t.db, { userId: null, statusText: "Отказ" });
    // Technical presses are about the call, not the client: not processed, absent from the top.
    for (let i = 0; i < 4; i++) await pressStatus(t.db, { userId: quiet.user.id, statusText: "Недозвон", isTechnical: true });

    const res = await t.request.get("/api/v1/statistics").set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      databases: 2,
      contacts: 300,
      reportStatuses: 7,
      totalReportStatuses: 2,
      totalDatabases: 3,
      totalContacts: 1300,
      statusCounts: { Отказ: 4, Заявка: 2, Перезвонить: 1, Недозвон: 4 },
      // Each status's own colour (the seeded statuses by their one name, decision 081), whatever its rank.
      statusColors: { Отказ: "#dc2626", Заявка: "#22c55e", Перезвонить: "#2563eb", Недозвон: "#6b7280" },
      topManagers: [
        { manager: "Ольга", count: 4 },
        { manager: "petr", count: 2 },
        { manager: "Неизвестно", count: 1 },
      ],
      // No calls today (test/api/call-numbers.test.ts counts them).
      calls: {
        day: kyivDate(new Date()),
        inbound: { calls: 0, answered: 0, missed: 0, calledBack: 0, callBackSeconds: null },
        total: { attempts: 0, answered: 0, answeredPercent: null, talkSeconds: 0, contacts: 0, attemptsPerContact: null },
        managers: [],
        topics: [],
      },
      // No topics here (test/api/contact-limits.test.ts counts what their rules hold back).
      contactRules: [],
    });

    // The same data seen from yesterday's Kyiv day (core takes the clock as input).
    const fromYesterday = await getStatistics(t.db, ADMIN_ACTOR, yesterday);
    expect(fromYesterday).toMatchObject({
      databases: 1,
      contacts: 1000,
      reportStatuses: 2,
      totalReportStatuses: 1,
      statusCounts: { Заявка: 1, Отказ: 1 },
      topManagers: [{ manager: "Ольга", count: 2 }],
    });
  });

  it("lists at most five managers, most clients first", async () => {
    const stats = await getStatistics(t.db, ADMIN_ACTOR, new Date(Date.UTC(2020, 0, 15, 10)));
    expect(stats.topManagers).toEqual([]);
    const at = new Date(Date.UTC(2020, 0, 15, 9));
    for (let n = 1; n <= 7; n++) {
      const user = await createUser(t.db, { displayName: `Топ ${n}` });
      for (let i = 0; i < n; i++) await pressStatus(t.db, { userId: user.user.id, statusText: "Отказ", at });
    }
    const again = await getStatistics(t.db, ADMIN_ACTOR, new Date(Date.UTC(2020, 0, 15, 10)));
    expect(again.topManagers).toEqual([7, 6, 5, 4, 3].map((n) => ({ manager: `Топ ${n}`, count: n })));
  });

  it("keeps a deleted manager's presses, counted as Неизвестно together with presses without a manager", async () => {
    const at = new Date(Date.UTC(2021, 5, 10, 9));
    const now = new Date(Date.UTC(2021, 5, 10, 12));
    const gone = await createUser(t.db, { displayName: "Уволенный" });
    const stays = await createUser(t.db, { displayName: "Остался" });
    for (let i = 0; i < 3; i++) await pressStatus(t.db, { userId: gone.user.id, statusText: "Отказ", at });
    await pressStatus(t.db, { userId: null, statusText: "Отказ", at });
    await pressStatus(t.db, { userId: stays.user.id, statusText: "Заявка", isReport: true, at });

    expect((await t.request.delete(`/api/v1/users/${gone.user.id}`).set(bearer(admin))).status).toBe(200);
    const stats = await getStatistics(t.db, ADMIN_ACTOR, now);
    expect(stats).toMatchObject({
      reportStatuses: 5,
      totalReportStatuses: 1,
      statusCounts: { Отказ: 4, Заявка: 1 },
      topManagers: [
        { manager: "Неизвестно", count: 4 },
        { manager: "Остался", count: 1 },
      ],
    });
  });

  it("colours a status by its own colour after an admin changes it, and a text no status has by the text alone", async () => {
    const at = new Date(Date.UTC(2022, 2, 3, 9));
    const now = new Date(Date.UTC(2022, 2, 3, 12));
    const someone = await createUser(t.db);
    for (let i = 0; i < 3; i++) await pressStatus(t.db, { userId: someone.user.id, statusText: "Заявка", isReport: true, at });
    await pressStatus(t.db, { userId: someone.user.id, statusText: "Удалённый статус", at });
    await pressStatus(t.db, { userId: someone.user.id, statusText: "Ещё удалённый", at });
    const list = await t.request.get("/api/v1/status").set(bearer(admin));
    const zayavka = (list.body as Array<{ id: number; text: string }>).find((s) => s.text === "Заявка")!;
    expect((await t.request.put(`/api/v1/status/${zayavka.id}`).set(bearer(admin)).send({ text: "Заявка", color: "#0f766e" })).status).toBe(200);

    const stats = await getStatistics(t.db, ADMIN_ACTOR, now);
    expect(stats.statusColors["Заявка"]).toBe("#0f766e");
    // Texts of deleted statuses: a colour of their own that does not depend on how many presses they have.
    const orphan = stats.statusColors["Удалённый статус"];
    expect(orphan).toMatch(/^#[0-9a-f]{6}$/);
    for (let i = 0; i < 5; i++) await pressStatus(t.db, { userId: someone.user.id, statusText: "Удалённый статус", at });
    const later = await getStatistics(t.db, ADMIN_ACTOR, now);
    expect(later.statusColors["Удалённый статус"]).toBe(orphan);
    expect(later.statusColors["Ещё удалённый"]).toBe(stats.statusColors["Ещё удалённый"]);
    await t.request.put(`/api/v1/status/${zayavka.id}`).set(bearer(admin)).send({ text: "Заявка", color: "#22c55e" });
  });

  it("is admin only", async () => {
    const manager = await createUser(t.db);
    const token = await t.tokenFor(manager);
    expect((await t.request.get("/api/v1/statistics")).status).toBe(401);
    const res = await t.request.get("/api/v1/statistics").set(bearer(token));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Недостаточно прав для этого действия");
  });
});

describe("GET /api/v1/statistics/personal/{id}", () => {
  it("lists a manager's statuses with counts, most frequent first; own only for a manager", async () => {
    const me = await createUser(t.db);
    const other = await createUser(t.db);
    const token = await t.tokenFor(me);
    const empty = await t.request.get(`/api/v1/statistics/personal/${me.user.id}`).set(bearer(token));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);

    await pressStatus(t.db, { userId: me.user.id, statusText: "Перезвонить" });
    for (let i = 0; i < 2; i++) await pressStatus(t.db, { userId: me.user.id, statusText: "Отказ" });
    await pressStatus(t.db, { userId: me.user.id, statusText: "Недозвон", isTechnical: true, at: new Date("2024-01-01T10:00:00Z") });
    await pressStatus(t.db, { userId: other.user.id, statusText: "Заявка", isReport: true });

    const mine = await t.request.get(`/api/v1/statistics/personal/${me.user.id}`).set(bearer(token));
    expect(mine.body).toEqual([
      { status: "Отказ", count: 2, color: "#dc2626" },
      { status: "Недозвон", count: 1, color: "#6b7280" },
      { status: "Перезвонить", count: 1, color: "#2563eb" },
    ]);
    const theirs = await t.request.get(`/api/v1/statistics/personal/${other.user.id}`).set(bearer(token));
    expect(theirs.status).toBe(403);
    const byAdmin = await t.request.get(`/api/v1/statistics/personal/${other.user.id}`).set(bearer(admin));
    expect(byAdmin.body).toEqual([{ status: "Заявка", count: 1, color: "#22c55e" }]);
    expect((await t.request.get("/api/v1/statistics/personal/99999").set(bearer(admin))).status).toBe(404);
    expect((await t.request.get("/api/v1/statistics/personal/abc").set(bearer(admin))).status).toBe(400);
  });
});
