import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { applications } from "../../db/schema";
import { bearer, createUser, reloadUser, useTestApp } from "../helpers/app";
import { sendReport, setRatesCents } from "../helpers/money";

let admin: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
});

const json = { "Content-Type": "application/json" };

describe("payouts", () => {
  it("counts unpaid reports per worker, pays one out, and lists what the payout covered", async () => {
    await setRatesCents(t.db, 1000, 400);
    const ivan = await createUser(t.db, { login: "ivan" });
    const anna = await createUser(t.db, { login: "anna" });
    await sendReport(t.db, ivan.user.id, { withPassport: true, text: "Имя: Пётр\nТелефон: 380501112233" });
    await sendReport(t.db, ivan.user.id, { withPassport: false, text: JSON.stringify("Имя: Ольга") });
    await sendReport(t.db, anna.user.id, { withPassport: false });

    const stats = await t.request.get("/api/v1/payments/stats").set(bearer(admin));
    expect(stats.status).toBe(200);
    expect(stats.body.withPassport).toBe(1);
    expect(stats.body.withoutPassport).toBe(2);
    const rows = stats.body.workerStats.filter((w: { login: string }) => ["anna", "ivan"].includes(w.login));
    expect(rows).toEqual([
      { id: anna.user.id, login: "anna", withPassport: 0, withoutPassport: 1, totalEarned: 4 },
      { id: ivan.user.id, login: "ivan", withPassport: 1, withoutPassport: 1, totalEarned: 14 },
    ]);
    expect(stats.body.workerStats.map((w: { login: string }) => w.login)).not.toContain("admin");

    const paid = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: ivan.user.id, amount: 14 });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ success: true, message: "Выплата проведена", balance: 0, payment: { amount: 14 } });
    expect((await reloadUser(t.db, ivan.user.id)).balanceCents).toBe(0);

    const after = await t.request.get("/api/v1/payments/stats").set(bearer(admin));
    expect(after.body.workerStats.find((w: { login: string }) => w.login === "ivan")).toEqual({
      id: ivan.user.id,
      login: "ivan",
      withPassport: 0,
      withoutPassport: 0,
      totalEarned: 0,
    });
    expect([after.body.withPassport, after.body.withoutPassport]).toEqual([0, 1]);

    const history = await t.request.get(`/api/v1/payments/history/${ivan.user.id}`).set(bearer(admin));
    expect(history.status).toBe(200);
    expect(history.body).toEqual([{ id: paid.body.payment.id, date: paid.body.payment.date, amount: 14 }]);

    const details = await t.request
      .post(`/api/v1/payments/history/${ivan.user.id}/history`)
      .set(bearer(admin))
      .send({ processTime: Date.parse(history.body[0].date) });
    expect(details.status).toBe(200);
    expect(details.body.map((d: { amount: number; applicationText: string }) => [d.amount, d.applicationText])).toEqual([
      [10, "Имя: Пётр\nТелефон: 380501112233"],
      [4, JSON.stringify("Имя: Ольга")],
    ]);
  });

  it("keeps a partial payout's remainder on the balance and carries it into the next payout's lines", async () => {
    await setRatesCents(t.db, 1000, 400);
    const worker = await createUser(t.db, { login: "partial" });
    await sendReport(t.db, worker.user.id, { withPassport: true, text: "первая" });
    await t.request.get(`/api/v1/users/balance/${worker.user.id}/2.50/add`).set(bearer(admin)).expect(200);
    const first = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: worker.user.id, amount: "7,50" });
    expect(first.status).toBe(200);
    expect(first.body.balance).toBe(5);
    await sendReport(t.db, worker.user.id, { withPassport: false, text: "вторая" });
    const second = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: worker.user.id, amount: 9 });
    expect(second.body.balance).toBe(0);

    const detailsOf = async (date: string) =>
      (
        await t.request
          .post(`/api/v1/payments/history/${worker.user.id}/history`)
          .set(bearer(admin))
          .send({ processTime: Date.parse(date) })
      ).body.map((d: { amount: number; applicationText: string }) => [d.amount, d.applicationText]);
    expect(await detailsOf(first.body.payment.date)).toEqual([
      [10, "первая"],
      [2.5, "Начисление администратором"],
      [-5, "Осталось на балансе после выплаты"],
    ]);
    expect(await detailsOf(second.body.payment.date)).toEqual([
      [5, "Остаток с прошлой выплаты"],
      [4, "вторая"],
    ]);
  });

  it.each([
    [{ amount: 0 }, 400, "Сумма выплаты не может быть 0"],
    [{ amount: "0,00" }, 400, "Сумма выплаты не может быть 0"],
    [{ amount: "abc" }, 400, "Введите число в поле"],
    [{ amount: -1 }, 400, "Сумма выплаты должна быть больше 0"],
    [{ amount: 100 }, 400, "Сумма выплаты не может быть больше баланса"],
  ])("refuses %j with %i %s and leaves the balance alone", async (body, status, message) => {
    const worker = await createUser(t.db, { balanceCents: 500 });
    const res = await t.request
      .post("/api/v1/payments/process")
      .set(bearer(admin))
      .send({ userId: worker.user.id, ...body });
    expect(res.status).toBe(status);
    expect(res.body.message).toBe(message);
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(500);
  });

  it("answers 404 for an unknown worker or payout and 400 for a missing id or time", async () => {
    const pay = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: 99999, amount: 1 });
    expect(pay.status).toBe(404);
    expect(pay.body).toEqual({ error: "worker_not_found", message: "Сотрудник не найден" });
    expect((await t.request.get("/api/v1/payments/history/99999").set(bearer(admin))).status).toBe(404);
    const noId = await t.request.post("/api/v1/payments/process").set(bearer(admin)).set(json).send("");
    expect(noId.status).toBe(400);
    expect(noId.body.message).toBe("Неверный идентификатор");
    const noBody = await t.request.post("/api/v1/payments/process").set(bearer(admin));
    expect(noBody.status).toBe(400);
    expect(noBody.body.message).toBe("Неверный идентификатор");
    const notObject = await t.request.post("/api/v1/payments/process").set(bearer(admin)).set(json).send("[1]");
    expect(notObject.status).toBe(400);
    expect(notObject.body.message).toBe("Тело запроса должно быть JSON-объектом");
    const worker = await createUser(t.db);
    const noTime = await t.request.post(`/api/v1/payments/history/${worker.user.id}/history`).set(bearer(admin)).send({});
    expect(noTime.status).toBe(400);
    expect(noTime.body.message).toBe("Укажите время выплаты (processTime)");
    const wrongTime = await t.request.post(`/api/v1/payments/history/${worker.user.id}/history`).set(bearer(admin)).send({ processTime: 1 });
    expect(wrongTime.status).toBe(404);
    expect(wrongTime.body.message).toBe("Выплата не найдена");
    expect((await t.request.delete("/api/v1/payments/history/99999").set(bearer(admin))).status).toBe(404);
  });

  it("cancels a payout: the money returns to the balance and its reports to the next payout or unpaid", async () => {
    await setRatesCents(t.db, 300, 300);
    const worker = await createUser(t.db, { login: "cancelled" });
    await sendReport(t.db, worker.user.id, { text: "a" });
    const first = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: worker.user.id, amount: 3 });
    await sendReport(t.db, worker.user.id, { text: "b" });
    const second = await t.request.post("/api/v1/payments/process").set(bearer(admin)).send({ userId: worker.user.id, amount: 3 });

    const cancel = await t.request.delete(`/api/v1/payments/history/${first.body.payment.id}`).set(bearer(admin));
    expect(cancel.status).toBe(200);
    expect(cancel.body).toEqual({ success: true, message: "Выплата отменена", balance: 3 });
    const apps = await t.db.select().from(applications).where(eq(applications.userId, worker.user.id));
    expect(apps.map((a) => a.paymentId)).toEqual([second.body.payment.id, second.body.payment.id]);

    await t.request.delete(`/api/v1/payments/history/${second.body.payment.id}`).set(bearer(admin)).expect(200);
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(600);
    const history = await t.request.get(`/api/v1/payments/history/${worker.user.id}`).set(bearer(admin));
    expect(history.body).toEqual([]);
    const stats = await t.request.get("/api/v1/payments/stats").set(bearer(admin));
    expect(stats.body.workerStats.find((w: { id: number }) => w.id === worker.user.id)).toMatchObject({
      withoutPassport: 2,
      totalEarned: 6,
    });
  });
});

describe("rates", () => {
  it("lets an admin set both rates, applied to later reports only", async () => {
    await setRatesCents(t.db, 100, 100);
    const worker = await createUser(t.db, { login: "rated" });
    await sendReport(t.db, worker.user.id, { withPassport: true });
    const put = await t.request.put("/api/v1/payments/rates").set(bearer(admin)).send({ withPassport: "12.5", withoutPassport: 6 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ withPassport: 12.5, withoutPassport: 6 });
    expect((await t.request.get("/api/v1/payments/rates").set(bearer(admin))).body).toEqual({ withPassport: 12.5, withoutPassport: 6 });
    await sendReport(t.db, worker.user.id, { withPassport: true });
    const apps = await t.db.select().from(applications).where(eq(applications.userId, worker.user.id));
    expect(apps.map((a) => a.amountCents)).toEqual([100, 1250]);
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(1350);

    const bad = await t.request.put("/api/v1/payments/rates").set(bearer(admin)).send({ withPassport: "-1", withoutPassport: 6 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Введите ставку в долларах, например 5 или 7.50");
  });
});

describe("role matrix", () => {
  it("keeps every payments route from anonymous callers (401) and managers (403)", async () => {
    const manager = await createUser(t.db, { login: "nosy" });
    const token = await t.tokenFor(manager);
    const calls = [
      () => t.request.get("/api/v1/payments/stats"),
      () => t.request.get(`/api/v1/payments/history/${manager.user.id}`),
      () => t.request.post(`/api/v1/payments/history/${manager.user.id}/history`).send({ processTime: 1 }),
      () => t.request.post("/api/v1/payments/process").send({ userId: manager.user.id, amount: 1 }),
      () => t.request.delete("/api/v1/payments/history/1"),
      () => t.request.get("/api/v1/payments/rates"),
      () => t.request.put("/api/v1/payments/rates").send({ withPassport: 1, withoutPassport: 1 }),
    ];
    for (const call of calls) {
      const anonymous = await call();
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.message).toBe("Требуется вход в систему");
      const byManager = await call().set(bearer(token));
      expect(byManager.status).toBe(403);
      expect(byManager.body.message).toBe("Недостаточно прав для этого действия");
    }
  });
});
