import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { balanceAdjustments } from "../../db/schema";
import { bearer, createUser, reloadUser, useTestApp } from "../helpers/app";
import { sendReport, setRatesCents } from "../helpers/money";

let admin: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
});

describe("GET /api/v1/users/balance/{id}", () => {
  it("shows a report's credit once as a popup: notify true, then false on the next read", async () => {
    await setRatesCents(t.db, 750, 300);
    const manager = await createUser(t.db, { login: "popup" });
    const token = await t.tokenFor(manager);
    const before = await t.request.get(`/api/v1/users/balance/${manager.user.id}`).set(bearer(token));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ balance: 0, notify: false, lastNotify: 0 });

    await sendReport(t.db, manager.user.id, { withPassport: true });
    const first = await t.request.get(`/api/v1/users/balance/${manager.user.id}`).set(bearer(token));
    expect(first.body).toEqual({ balance: 7.5, notify: true, lastNotify: 7.5 });
    const second = await t.request.get(`/api/v1/users/balance/${manager.user.id}`).set(bearer(token));
    expect(second.body).toEqual({ balance: 7.5, notify: false, lastNotify: 7.5 });

    await sendReport(t.db, manager.user.id, { withPassport: false });
    const third = await t.request.get(`/api/v1/users/balance/${manager.user.id}`).set(bearer(token));
    expect(third.body).toEqual({ balance: 10.5, notify: true, lastNotify: 3 });
  });

  it("lets a manager read only his own balance; an admin reads anyone's without consuming the popup", async () => {
    await setRatesCents(t.db, 500, 200);
    const a = await createUser(t.db, { login: "own-a" });
    const b = await createUser(t.db, { login: "own-b" });
    const tokenA = await t.tokenFor(a);
    const other = await t.request.get(`/api/v1/users/balance/${b.user.id}`).set(bearer(tokenA));
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: "forbidden", message: "Можно работать только со своими данными" });

    await sendReport(t.db, b.user.id, { withPassport: false });
    const byAdmin = await t.request.get(`/api/v1/users/balance/${b.user.id}`).set(bearer(admin));
    expect(byAdmin.body).toEqual({ balance: 2, notify: true, lastNotify: 2 });
    expect((await reloadUser(t.db, b.user.id)).notify).toBe(true);
  });

  it("answers 401 without a token, 404 for an unknown user and 400 for a bad id", async () => {
    expect((await t.request.get("/api/v1/users/balance/1")).status).toBe(401);
    const unknown = await t.request.get("/api/v1/users/balance/99999").set(bearer(admin));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "worker_not_found", message: "Сотрудник не найден" });
    const bad = await t.request.get("/api/v1/users/balance/x1").set(bearer(admin));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
  });
});

describe("GET /api/v1/users/balance/{userId}/{amount}/add|rem|def", () => {
  it("adds, subtracts and resets to the cent, with the SPEC messages", async () => {
    const worker = await createUser(t.db, { login: "adjusted" });
    const id = worker.user.id;
    const add = await t.request.get(`/api/v1/users/balance/${id}/19.99/add`).set(bearer(admin));
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ success: true, message: "Баланс обновлен", balance: 19.99 });
    for (const amount of ["0.10", "0,10", "0.1"]) {
      await t.request.get(`/api/v1/users/balance/${id}/${amount}/add`).set(bearer(admin)).expect(200);
    }
    expect((await reloadUser(t.db, id)).balanceCents).toBe(2029);

    const rem = await t.request.get(`/api/v1/users/balance/${id}/0.29/rem`).set(bearer(admin));
    expect(rem.body).toEqual({ success: true, message: "Баланс обновлен", balance: 20 });

    const def = await t.request.get(`/api/v1/users/balance/${id}/0/def`).set(bearer(admin));
    expect(def.body).toEqual({ success: true, message: "Баланс обнулен", balance: 0 });
    const user = await reloadUser(t.db, id);
    expect(user.balanceCents).toBe(0);

    const rows = await t.db.select().from(balanceAdjustments).where(eq(balanceAdjustments.userId, id));
    expect(rows.map((r) => [r.kind, r.amountCents])).toEqual([
      ["add", 1999],
      ["add", 10],
      ["add", 10],
      ["add", 10],
      ["rem", 29],
      ["def", 2000],
    ]);
  });

  it("raises the worker's popup for an addition, not for a subtraction", async () => {
    const worker = await createUser(t.db, { login: "gifted" });
    await t.request.get(`/api/v1/users/balance/${worker.user.id}/5/add`).set(bearer(admin)).expect(200);
    let user = await reloadUser(t.db, worker.user.id);
    expect([user.notify, user.lastNotifyCents]).toEqual([true, 500]);
    const token = await t.tokenFor(worker);
    await t.request.get(`/api/v1/users/balance/${worker.user.id}`).set(bearer(token)).expect(200);
    await t.request.get(`/api/v1/users/balance/${worker.user.id}/1/rem`).set(bearer(admin)).expect(200);
    user = await reloadUser(t.db, worker.user.id);
    expect([user.notify, user.balanceCents]).toEqual([false, 400]);
  });

  it.each([["0"], ["0.00"], ["abc"], ["-5"], ["1.005"], ["1e3"], [" "]])("refuses %j for add and rem with Введите число в поле", async (amount) => {
    const worker = await createUser(t.db);
    for (const kind of ["add", "rem"]) {
      const res = await t.request.get(`/api/v1/users/balance/${worker.user.id}/${encodeURIComponent(amount)}/${kind}`).set(bearer(admin));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "validation", message: "Введите число в поле" });
    }
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(0);
  });

  it("resets without checking the amount", async () => {
    const worker = await createUser(t.db, { balanceCents: 1234 });
    const res = await t.request.get(`/api/v1/users/balance/${worker.user.id}/abc/def`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Баланс обнулен");
  });

  it("is admin only: a manager gets 403, a cookie without the bearer token 401, an unknown worker 404", async () => {
    const manager = await createUser(t.db, { login: "greedy" });
    const token = await t.tokenFor(manager);
    const self = await t.request.get(`/api/v1/users/balance/${manager.user.id}/100/add`).set(bearer(token));
    expect(self.status).toBe(403);
    expect(self.body.message).toBe("Недостаточно прав для этого действия");
    const cookie = await t.request.get(`/api/v1/users/balance/${manager.user.id}/100/add`).set("Cookie", `session=${admin}`);
    expect(cookie.status).toBe(401);
    expect((await reloadUser(t.db, manager.user.id)).balanceCents).toBe(0);
    const unknown = await t.request.get("/api/v1/users/balance/99999/1/add").set(bearer(admin));
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Сотрудник не найден");
  });

  it("refuses an amount that would overflow the balance with 400, not 500", async () => {
    const worker = await createUser(t.db);
    await t.request.get(`/api/v1/users/balance/${worker.user.id}/9999999.99/add`).set(bearer(admin)).expect(200);
    await t.request.get(`/api/v1/users/balance/${worker.user.id}/9999999.99/add`).set(bearer(admin)).expect(200);
    const third = await t.request.get(`/api/v1/users/balance/${worker.user.id}/9999999.99/add`).set(bearer(admin));
    expect(third.status).toBe(400);
    expect(third.body.message).toBe("Слишком большая сумма");
    const huge = await t.request.get(`/api/v1/users/balance/${worker.user.id}/100000000/add`).set(bearer(admin));
    expect(huge.status).toBe(400);
  });
});
