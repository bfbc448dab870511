import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getStatistics } from "../../server/core/statistics/statistics";
import { kyivDay } from "../../server/core/statistics/day";
import { bearer, createTestApp, createUser, type TestApp } from "../helpers/app";
import { createBase, pressStatus } from "../helpers/money";

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.close();
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
      topManagers: [
        { manager: "Ольга", count: 4 },
        { manager: "petr", count: 2 },
        { manager: "Неизвестно", count: 1 },
      ],
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
      { status: "Отказ", count: 2 },
      { status: "Недозвон", count: 1 },
      { status: "Перезвонить", count: 1 },
    ]);
    const theirs = await t.request.get(`/api/v1/statistics/personal/${other.user.id}`).set(bearer(token));
    expect(theirs.status).toBe(403);
    const byAdmin = await t.request.get(`/api/v1/statistics/personal/${other.user.id}`).set(bearer(admin));
    expect(byAdmin.body).toEqual([{ status: "Заявка", count: 1 }]);
    expect((await t.request.get("/api/v1/statistics/personal/99999").set(bearer(admin))).status).toBe(404);
    expect((await t.request.get("/api/v1/statistics/personal/abc").set(bearer(admin))).status).toBe(400);
  });
});
