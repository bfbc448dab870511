import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { calls, leadEvents } from "../../db/schema";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { insertAnsweredCall } from "../helpers/calls";
import { createBase, createFilterRow } from "../helpers/leads";

/** Call scoring (issue 39 §3, decision 073): scorecards, scores, comments, disputes, by every role. */
const t = useTestApp();

let admin: string;
let annaToken: string;
let borisToken: string;
let anna: number;
let boris: number;
let topic: number;
let bare: number;

async function call(userId: number, filterId: number | null, fields: Partial<typeof calls.$inferInsert> = {}) {
  return (await insertAnsweredCall(t.db, userId, filterId, fields)).id;
}

const CARD = {
  criteria: [
    { text: "Поздоровался и представился", weight: 10, critical: false },
    { text: "Выяснил потребность", weight: 30, critical: false },
    { text: "Не грубил клиенту", weight: 20, critical: true },
    { text: "Назвал цену", weight: 40, critical: false },
  ],
};

async function criteriaIds(): Promise<number[]> {
  const res = await t.request.get(`/api/v1/scorecards/${topic}`).set(bearer(admin));
  return res.body.criteria.map((c: { id: number }) => c.id);
}

const answersOf = (ids: number[], answers: string[]) => Object.fromEntries(ids.map((id, i) => [String(id), answers[i]]));

beforeAll(async () => {
  admin = await t.adminToken();
  const a = await createUser(t.db, { login: "score-anna", displayName: "Анна" });
  const b = await createUser(t.db, { login: "score-boris", displayName: "Борис" });
  anna = a.user.id;
  boris = b.user.id;
  annaToken = await t.tokenFor(a);
  borisToken = await t.tokenFor(b);
  topic = (await createFilterRow(t.db, { name: "Кредиты", managerIds: [anna, boris], databaseIds: [], statusIds: [] })).id;
  bare = (await createFilterRow(t.db, { name: "Без листа", managerIds: [anna], databaseIds: [], statusIds: [] })).id;
});

describe("scorecards", () => {
  it("an admin replaces a topic's scorecard and reads it back in order", async () => {
    const put = await t.request.put(`/api/v1/scorecards/${topic}`).set(bearer(admin)).send(CARD);
    expect(put.status).toBe(200);
    expect(put.body.filterName).toBe("Кредиты");
    expect(put.body.criteria.map((c: { text: string; weight: number; critical: boolean }) => [c.text, c.weight, c.critical])).toEqual(
      CARD.criteria.map((c) => [c.text, c.weight, c.critical]),
    );
    const get = await t.request.get(`/api/v1/scorecards/${topic}`).set(bearer(admin));
    expect(get.body.criteria).toHaveLength(4);
  });

  it("refuses a manager (403), bad criteria (400 in Russian) and an unknown topic (404)", async () => {
    expect((await t.request.get(`/api/v1/scorecards/${topic}`).set(bearer(annaToken))).status).toBe(403);
    const managerPut = await t.request.put(`/api/v1/scorecards/${topic}`).set(bearer(annaToken)).send(CARD);
    expect(managerPut.status).toBe(403);
    const weight = await t.request
      .put(`/api/v1/scorecards/${topic}`)
      .set(bearer(admin))
      .send({ criteria: [{ text: "Пункт", weight: 0 }] });
    expect(weight.status).toBe(400);
    expect(weight.body.message).toBe("Вес пункта — целое число от 1 до 100");
    const blank = await t.request
      .put(`/api/v1/scorecards/${topic}`)
      .set(bearer(admin))
      .send({ criteria: [{ text: "  ", weight: 5 }] });
    expect(blank.body.message).toBe("Введите текст пункта");
    const missing = await t.request.put(`/api/v1/scorecards/999999`).set(bearer(admin)).send(CARD);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Тематика не найдена");
    expect((await criteriaIds()).length).toBe(4);
  });
});

describe("scoring a call", () => {
  it("scores by the formula: weights of «не применимо» left out, «частично» half", async () => {
    const ids = await criteriaIds();
    const id = await call(anna, topic);
    // yes 10, partly 30 (15), yes 20, n/a 40 → (10 + 15 + 20) / 60 = 75
    const res = await t.request
      .post(`/api/v1/scores/calls/${id}`)
      .set(bearer(admin))
      .send({ answers: answersOf(ids, ["yes", "partly", "yes", "na"]), comment: "Хорошо, но цену не назвал" });
    expect(res.status).toBe(200);
    expect(res.body.score).toMatchObject({ score: 75, finalScore: 75, manager: "Анна", topic: "Кредиты", comment: "Хорошо, но цену не назвал" });
    // Without the n/a exclusion it would be 45 of 100.
    expect(res.body.score.answers.map((a: { answer: string }) => a.answer)).toEqual(["yes", "partly", "yes", "na"]);
  });

  it("a «нет» on a critical criterion makes the score 0", async () => {
    const ids = await criteriaIds();
    const id = await call(anna, topic);
    const res = await t.request
      .post(`/api/v1/scores/calls/${id}`)
      .set(bearer(admin))
      .send({ answers: answersOf(ids, ["yes", "yes", "no", "yes"]) });
    expect(res.status).toBe(200);
    expect(res.body.score.score).toBe(0);
  });

  it("refuses what cannot be scored, in Russian", async () => {
    const ids = await criteriaIds();
    const id = await call(anna, topic);
    const post = (body: object, callId = id, token = admin) => t.request.post(`/api/v1/scores/calls/${callId}`).set(bearer(token)).send(body);
    expect((await post({ answers: answersOf(ids, ["yes", "yes", "yes", "yes"]) }, id, annaToken)).status).toBe(403);
    const unanswered = await post({ answers: answersOf(ids.slice(0, 3), ["yes", "yes", "yes"]) });
    expect([unanswered.status, unanswered.body.message]).toEqual([400, "Ответьте на пункт «Назвал цену»"]);
    const wrong = await post({ answers: answersOf(ids, ["yes", "maybe", "yes", "yes"]) });
    expect([wrong.status, wrong.body.message]).toEqual([400, "Выберите ответ: да, нет, частично или не применимо"]);
    const allNa = await post({ answers: answersOf(ids, ["na", "na", "na", "na"]) });
    expect([allNa.status, allNa.body.message]).toEqual([400, "Все пункты «не применимо»: оценивать нечего"]);
    const noCard = await post({ answers: {} }, await call(anna, bare));
    expect(noCard.status).toBe(400);
    expect(noCard.body.message).toMatch(/^У тематики этого звонка нет оценочного листа/);
    const unanswer = await post(
      { answers: answersOf(ids, ["yes", "yes", "yes", "yes"]) },
      await call(anna, topic, { answeredAt: null, talkSeconds: 0, outcome: "busy" }),
    );
    expect([unanswer.status, unanswer.body.message]).toEqual([400, "Разговора не было: оценивать нечего"]);
    expect((await post({ answers: {} }, 999_999_999)).status).toBe(404);
    expect((await post({ answers: answersOf(ids, ["yes", "yes", "yes", "yes"]) })).status).toBe(200);
    const again = await post({ answers: answersOf(ids, ["no", "no", "no", "no"]) });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("Этот звонок уже оценён: изменить оценку можно только по спору менеджера");
  });

  it("pins comments to moments (м:сс or seconds), in order; a bad moment is a 400 in Russian", async () => {
    const id = await call(anna, topic, { recording: "ready", recordingFile: "x.ogg", recordingMs: 125_000 });
    const add = (body: object, token = admin) => t.request.post(`/api/v1/scores/calls/${id}/comments`).set(bearer(token)).send(body);
    expect((await add({ at: "1:05", text: "Перебил клиента" })).status).toBe(200);
    const res = await add({ at: 12, text: "Хорошее приветствие" });
    expect(res.body.map((c: { at: string; text: string }) => [c.at, c.text])).toEqual([
      ["0:12", "Хорошее приветствие"],
      ["1:05", "Перебил клиента"],
    ]);
    expect((await add({ at: "1:5", text: "x" })).body.message).toBe("Укажите момент записи как мм:сс, например 1:05");
    const late = await add({ at: "2:10", text: "x" });
    expect([late.status, late.body.message]).toEqual([400, "Момент 2:10 позже конца записи (2:05)"]);
    expect((await add({ at: "0:10", text: " " })).body.message).toBe("Введите текст комментария");
    expect((await add({ at: "0:10", text: "мой" }, annaToken)).status).toBe(403);
  });
});

describe("what a manager sees, and disputes", () => {
  let scoreId: number;
  let callId: number;

  beforeAll(async () => {
    const ids = await criteriaIds();
    callId = await call(anna, topic);
    const res = await t.request
      .post(`/api/v1/scores/calls/${callId}`)
      .set(bearer(admin))
      .send({ answers: answersOf(ids, ["yes", "no", "yes", "yes"]) });
    scoreId = res.body.score.id;
    await t.request.post(`/api/v1/scores/calls/${callId}/comments`).set(bearer(admin)).send({ at: "0:30", text: "Здесь нужно было спросить бюджет" });
  });

  it("a manager reads his own scores with their comments, never another's (403)", async () => {
    const mine = await t.request.get("/api/v1/scores").set(bearer(annaToken));
    expect(mine.status).toBe(200);
    expect(mine.body.every((s: { managerId: number }) => s.managerId === anna)).toBe(true);
    const one = mine.body.find((s: { id: number }) => s.id === scoreId);
    expect(one).toMatchObject({ score: 70, comments: [{ at: "0:30", text: "Здесь нужно было спросить бюджет" }] });
    expect((await t.request.get("/api/v1/scores").set(bearer(borisToken))).body).toEqual([]);
    expect((await t.request.get("/api/v1/scores").query({ managerId: anna }).set(bearer(borisToken))).status).toBe(403);
    expect((await t.request.get(`/api/v1/scores/calls/${callId}`).set(bearer(borisToken))).status).toBe(403);
    const sheet = await t.request.get(`/api/v1/scores/calls/${callId}`).set(bearer(annaToken));
    expect(sheet.status).toBe(200);
    expect(sheet.body.score.id).toBe(scoreId);
    const admins = await t.request.get("/api/v1/scores").query({ managerId: anna }).set(bearer(admin));
    expect(admins.body.length).toBeGreaterThanOrEqual(3);
  });

  it("only the call's manager disputes, once; the second is refused in Russian", async () => {
    const dispute = (token: string, comment: string) => t.request.post(`/api/v1/scores/${scoreId}/dispute`).set(bearer(token)).send({ comment });
    expect((await dispute(borisToken, "не моё")).status).toBe(403);
    expect((await dispute(admin, "за него")).status).toBe(403);
    const blank = await dispute(annaToken, "  ");
    expect([blank.status, blank.body.message]).toEqual([400, "Напишите, с чем вы не согласны"]);
    const first = await dispute(annaToken, "Потребность я выяснил на 0:40");
    expect(first.status).toBe(200);
    expect(first.body.dispute.comment).toBe("Потребность я выяснил на 0:40");
    const second = await dispute(annaToken, "Ещё раз");
    expect([second.status, second.body.message]).toEqual([409, "Оценку можно оспорить только один раз: вы её уже оспорили"]);
    const open = await t.request.get("/api/v1/scores").query({ disputed: "open" }).set(bearer(admin));
    expect(open.body.map((s: { id: number }) => s.id)).toEqual([scoreId]);
  });

  it("an admin accepts with a rescore; the original score is kept beside it", async () => {
    const ids = (await t.request.get(`/api/v1/scores/calls/${callId}`).set(bearer(admin))).body.score.answers.map((a: { id: number }) => a.id);
    const decide = (body: object, token = admin) => t.request.post(`/api/v1/scores/${scoreId}/decision`).set(bearer(token)).send(body);
    expect((await decide({ decision: "accept", answers: answersOf(ids, ["yes", "yes", "yes", "yes"]) }, annaToken)).status).toBe(403);
    const noAnswers = await decide({ decision: "accept" });
    expect([noAnswers.status, noAnswers.body.message]).toEqual([400, "Пересмотр требует новых ответов по пунктам"]);
    const res = await decide({ decision: "accept", reason: "Да, выяснил", answers: answersOf(ids, ["yes", "partly", "yes", "yes"]) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ score: 70, finalScore: 85, decision: { decision: "accepted", rescore: 85, reason: "Да, выяснил" } });
    expect(res.body.decision.by).toBeTruthy();
    const again = await decide({ decision: "reject", reason: "нет" });
    expect([again.status, again.body.message]).toEqual([409, "По этому спору уже есть решение"]);
  });

  it("an admin rejects with a reason (required); an undisputed score has nothing to decide", async () => {
    const ids = await criteriaIds();
    const other = await call(anna, topic);
    const res = await t.request
      .post(`/api/v1/scores/calls/${other}`)
      .set(bearer(admin))
      .send({ answers: answersOf(ids, ["no", "no", "yes", "no"]) });
    const id = res.body.score.id;
    const early = await t.request.post(`/api/v1/scores/${id}/decision`).set(bearer(admin)).send({ decision: "reject", reason: "x" });
    expect([early.status, early.body.message]).toEqual([409, "Эту оценку не оспаривали: решать нечего"]);
    await t.request.post(`/api/v1/scores/${id}/dispute`).set(bearer(annaToken)).send({ comment: "Несправедливо" });
    const noReason = await t.request.post(`/api/v1/scores/${id}/decision`).set(bearer(admin)).send({ decision: "reject" });
    expect([noReason.status, noReason.body.message]).toEqual([400, "Напишите причину отказа"]);
    const rejected = await t.request
      .post(`/api/v1/scores/${id}/decision`)
      .set(bearer(admin))
      .send({ decision: "reject", reason: "Цену не назвал: 1:10" });
    expect(rejected.body).toMatchObject({
      score: 20,
      finalScore: 20,
      decision: { decision: "rejected", reason: "Цену не назвал: 1:10", rescore: null },
    });
  });

  it("deletes a comment (admins only)", async () => {
    const sheet = await t.request.get(`/api/v1/scores/calls/${callId}`).set(bearer(admin));
    const commentId = sheet.body.comments[0].id;
    expect((await t.request.delete(`/api/v1/scores/comments/${commentId}`).set(bearer(annaToken))).status).toBe(403);
    expect((await t.request.delete(`/api/v1/scores/comments/${commentId}`).set(bearer(admin))).status).toBe(200);
    expect((await t.request.delete(`/api/v1/scores/comments/${commentId}`).set(bearer(admin))).status).toBe(404);
  });
});

describe("the numbers and which calls to score next", () => {
  it("averages the scores that count per week, manager and topic, with scored and disputed counts (admins only)", async () => {
    const res = await t.request.get("/api/v1/scores/numbers").query({ weeks: 1 }).set(bearer(admin));
    expect(res.status).toBe(200);
    const anna_ = res.body.find((r: { managerId: number; filterId: number }) => r.managerId === anna && r.filterId === topic);
    // Anna's scores this week: 75, 0, 100 («да» everywhere), 70 rescored to 85, 20 (rejected): (75+0+100+85+20)/5 = 56.
    expect(anna_).toMatchObject({ manager: "Анна", topic: "Кредиты", scored: 5, disputed: 2, average: 56 });
    expect(anna_.week).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(`${anna_.week}T12:00:00Z`).getUTCDay()).toBe(1);
    expect((await t.request.get("/api/v1/scores/numbers").set(bearer(annaToken))).status).toBe(403);
    const bad = await t.request.get("/api/v1/scores/numbers").query({ weeks: 0 }).set(bearer(admin));
    expect([bad.status, bad.body.message]).toEqual([400, "weeks — число недель от 1 до 52"]);
    const none = await t.request.get("/api/v1/scores/numbers").query({ managerId: boris }).set(bearer(admin));
    expect(none.body).toEqual([]);
  });

  it("offers each manager's unscored calls of the week: the longest, the shortest, one that ended in a report", async () => {
    const long = await call(boris, topic, { talkSeconds: 900 });
    // A client who called in (issue 42): scored as any call, and said to be one.
    const short = await call(boris, topic, { talkSeconds: 12, direction: "in" });
    const middle = await call(boris, topic, { talkSeconds: 300 });
    await call(boris, topic, { talkSeconds: 200 });
    // A report pressed for the middle call's client right after it.
    const { contacts } = await createBase(t.db, { name: "Для заявки", count: 1 });
    await t.db.update(calls).set({ contactId: contacts[0].id }).where(eq(calls.id, middle));
    await t.db.insert(leadEvents).values({ contactId: contacts[0].id, userId: boris, statusText: "Заявка", isReport: true, createdAt: new Date() });
    const res = await t.request.get("/api/v1/scores/next").set(bearer(admin));
    expect(res.status).toBe(200);
    const b = res.body.find((m: { managerId: number }) => m.managerId === boris);
    expect(b).toMatchObject({ manager: "Борис", unscored: 4, scored: 0 });
    expect(b.calls.map((c: { id: number; reasons: string[] }) => [c.id, c.reasons])).toEqual([
      [long, ["longest"]],
      [short, ["shortest"]],
      [middle, ["report"]],
    ]);
    expect(b.calls.map((c: { direction: string }) => c.direction)).toEqual(["out", "in", "out"]);
    const sheet = await t.request.get(`/api/v1/scores/calls/${short}`).set(bearer(admin));
    expect(sheet.body.call).toMatchObject({ id: short, direction: "in" });
    // Boris has nothing scored: he comes before Anna.
    expect(res.body[0].managerId).toBe(boris);
    // A scored call leaves the list.
    const ids = await criteriaIds();
    await t.request
      .post(`/api/v1/scores/calls/${long}`)
      .set(bearer(admin))
      .send({ answers: answersOf(ids, ["yes", "yes", "yes", "yes"]) });
    const after = (await t.request.get("/api/v1/scores/next").set(bearer(admin))).body.find((m: { managerId: number }) => m.managerId === boris);
    expect(after).toMatchObject({ unscored: 3, scored: 1 });
    expect(after.calls.find((c: { reasons: string[] }) => c.reasons.includes("longest")).id).toBe(middle);
    expect((await t.request.get("/api/v1/scores/next").set(bearer(borisToken))).status).toBe(403);
  });
});
