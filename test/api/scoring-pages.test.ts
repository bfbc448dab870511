import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { callComments, callScores, scorecardCriteria } from "../../db/schema";
import { ADMIN, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { insertAnsweredCall } from "../helpers/calls";
import { createFilterRow } from "../helpers/leads";
import { escapeRegExp, field } from "../helpers/form-fields";

/** The scoring pages without JavaScript (issue 39 §3): each form posts, answers its message next to its field, saves. */
const t = useTestApp({ web: true });

let admin: string;
let manager: string;
let topic: number;
let callId: number;

beforeAll(async () => {
  admin = await pageSessionCookie(t, ADMIN);
  const m = await createUser(t.db, { login: "pages-anna", displayName: "Анна" });
  manager = await pageSessionCookie(t, m);
  topic = (await createFilterRow(t.db, { name: "Кредиты", managerIds: [m.user.id], databaseIds: [], statusIds: [] })).id;
  callId = (
    await insertAnsweredCall(t.db, m.user.id, topic, {
      startedAgoMs: 600_000,
      direction: "in",
      recording: "ready",
      recordingFile: "none.ogg",
      recordingMs: 95_000,
    })
  ).id;
});

describe("the scorecard editor without JavaScript", () => {
  const page = () => `/quality/scorecard/${topic}`;

  it("is the admins': a manager gets 403", async () => {
    expect((await getPage(t, page(), manager)).status).toBe(403);
    expect((await postPageForm(t, page(), manager, { intent: "scorecard-save" })).status).toBe(403);
  });

  it("adds a row by its button, refuses a bad weight under its field, saves, removes a row by its button", async () => {
    const empty = await getPage(t, page(), admin);
    expect(empty.text).toContain("Оценочный лист: Кредиты");
    expect(empty.text).toContain("Пунктов нет: звонки этой тематики не оцениваются");
    const insert = { type: "insert", payload: { name: "criteria", defaultValue: { text: "", weight: "10" } } };
    const added = await postPageForm(t, page(), admin, {
      intent: "scorecard-save",
      "criteria[0].text": "Поздоровался",
      "criteria[0].weight": "10",
      __intent__: JSON.stringify(insert),
    });
    expect(added.status).toBe(200);
    expect(field(added.text, "criteria[0].text").value).toBe("Поздоровался");
    expect(field(added.text, "criteria[1].weight")).toMatchObject({ value: "10", invalid: false });
    expect(await t.db.select().from(scorecardCriteria)).toHaveLength(0);

    const rows = {
      intent: "scorecard-save",
      "criteria[0].text": "Поздоровался",
      "criteria[0].weight": "10",
      "criteria[1].text": "Не грубил",
      "criteria[1].weight": "200",
      "criteria[1].critical": "on",
    };
    const bad = await postPageForm(t, page(), admin, rows);
    expect(bad.status).toBe(400);
    expect(field(bad.text, "criteria[1].weight")).toMatchObject({ invalid: true, message: "Вес пункта — целое число от 1 до 100", value: "200" });
    const blank = await postPageForm(t, page(), admin, { ...rows, "criteria[1].weight": "20", "criteria[0].text": " " });
    expect(field(blank.text, "criteria[0].text")).toMatchObject({ invalid: true, message: "Введите текст пункта" });

    const saved = await postPageForm(t, page(), admin, { ...rows, "criteria[1].weight": "20" });
    expect(saved.status).toBe(302);
    const stored = await t.db.select().from(scorecardCriteria).where(eq(scorecardCriteria.filterId, topic)).orderBy(scorecardCriteria.position);
    expect(stored.map((c) => [c.text, c.weight, c.critical])).toEqual([
      ["Поздоровался", 10, false],
      ["Не грубил", 20, true],
    ]);
    const shown = await getPage(t, page(), admin);
    expect(field(shown.text, "criteria[1].critical").tag).toContain('checked=""');
    expect(field(shown.text, "criteria[0].critical").tag).not.toContain("checked");

    const remove = { type: "remove", payload: { name: "criteria", index: 0 } };
    const removed = await postPageForm(t, page(), admin, { ...rows, "criteria[1].weight": "20", __intent__: JSON.stringify(remove) });
    expect(removed.status).toBe(200);
    expect(field(removed.text, "criteria[0].text").value).toBe("Не грубил");
    expect(removed.text).not.toContain('name="criteria[1].text"');
    expect(await t.db.select().from(scorecardCriteria)).toHaveLength(2);
  });
});

describe("the scoring screen without JavaScript", () => {
  const page = () => `/quality/call/${callId}`;

  it("is the admins': a manager gets 403 even for his own call", async () => {
    expect((await getPage(t, page(), manager)).status).toBe(403);
  });

  it("says which way the call went (issue 42): in the list of calls to score and on the call's own screen", async () => {
    const next = await getPage(t, "/quality", admin);
    expect(next.text).toMatch(new RegExp(`<a[^>]*href="/quality/call/${callId}"[^>]*>[^<]* · входящий · 1:35<`));
    expect((await getPage(t, page(), admin)).text).toContain("Кредиты · входящий · +380501112233");
  });

  it("pins a comment to a moment (a link to the recording from that second); a bad moment is answered under its field", async () => {
    const bad = await postPageForm(t, page(), admin, { intent: "comment-add", at: "90", text: "Перебил" });
    expect(bad.status).toBe(400);
    expect(field(bad.text, "at")).toMatchObject({ invalid: true, message: "Укажите момент записи как мм:сс, например 1:05", value: "90" });
    const late = await postPageForm(t, page(), admin, { intent: "comment-add", at: "2:00", text: "Перебил" });
    expect(late.status).toBe(400);
    expect(late.text).toContain("Момент 2:00 позже конца записи (1:35)");
    const ok = await postPageForm(t, page(), admin, { intent: "comment-add", at: "1:05", text: "Перебил клиента" });
    expect(ok.status).toBe(302);
    const shown = await getPage(t, page(), admin);
    expect(shown.text).toMatch(new RegExp(`<a href="/recordings/${callId}#t=65"[^>]*data-seek="65"[^>]*>1:05</a>`));
    expect(shown.text).toContain("Перебил клиента");
    // A delete asks first (its question in the URL), and only its button posts.
    const extra = await postPageForm(t, page(), admin, { intent: "comment-add", at: "0:10", text: "Лишний" });
    expect(extra.status).toBe(302);
    const [row] = (await t.db.select().from(callComments)).filter((c) => c.text === "Лишний");
    const asked = await getPage(t, `${page()}?deleteComment=${row.id}`, admin);
    expect(asked.text).toContain("Удалить комментарий?");
    expect(asked.text).toContain("Комментарий на <!-- -->0:10<!-- --> «<!-- -->Лишний<!-- -->» будет удалён.");
    const gone = await postPageForm(t, page(), admin, { intent: "comment-delete", id: String(row.id) });
    expect(gone.status).toBe(302);
    expect((await t.db.select().from(callComments)).map((c) => c.text)).toEqual(["Перебил клиента"]);
  });

  it("asks for every answer under its criterion, then saves the score", async () => {
    const ids = (await t.db.select().from(scorecardCriteria).where(eq(scorecardCriteria.filterId, topic)).orderBy(scorecardCriteria.position)).map(
      (c) => c.id,
    );
    const partial = await postPageForm(t, page(), admin, { intent: "score-save", [`answers.${ids[0]}`]: "yes" });
    expect(partial.status).toBe(400);
    const fieldset = /<fieldset[^>]*data-testid="criterion-answer"[^>]*aria-describedby="([^"]+)"[^>]*><legend[^>]*>Не грубил/.exec(partial.text);
    expect(fieldset).not.toBeNull();
    expect(partial.text).toMatch(new RegExp(`id="${escapeRegExp(fieldset![1])}"[^>]*data-field-error="">Выберите ответ по этому пункту<`));
    // The given answer stays chosen.
    expect(partial.text).toMatch(new RegExp(`name="answers.${ids[0]}"[^>]*checked=""[^>]*value="yes"`));
    const saved = await postPageForm(t, page(), admin, {
      intent: "score-save",
      [`answers.${ids[0]}`]: "partly",
      [`answers.${ids[1]}`]: "yes",
      comment: "Неплохо",
    });
    expect(saved.status).toBe(302);
    const [score] = await t.db.select().from(callScores).where(eq(callScores.callId, callId));
    // (10 × 0.5 + 20) / 30 = 83
    expect(score.score).toBe(83);
    const shown = await getPage(t, page(), admin);
    expect(shown.text).toContain('data-testid="score-value">83<');
    expect(shown.text).not.toContain('data-testid="score-form"');
    expect(await t.db.select().from(callComments)).toHaveLength(1);
  });
});

describe("the manager's scores on /profile without JavaScript", () => {
  it("shows his score, answers and pinned comments; disputes once; the second is refused in Russian", async () => {
    const profile = await getPage(t, "/profile", manager);
    expect(profile.status).toBe(200);
    expect(profile.text).toContain('data-testid="my-score-value">83<');
    expect(profile.text).toContain("Кредиты · входящий · +380501112233 · 1:35");
    expect(profile.text).toContain("Перебил клиента");
    // The topic does not let managers hear recordings: the moment is plain text, no player.
    expect(profile.text).toMatch(/<span[^>]*data-seek="65"[^>]*>1:05<\/span>/);
    expect(profile.text).not.toContain("data-score-player");
    const [score] = await t.db.select().from(callScores).where(eq(callScores.callId, callId));
    const empty = await postPageForm(t, "/profile", manager, { intent: "dispute", id: String(score.id), comment: " " });
    expect(empty.status).toBe(400);
    expect(field(empty.text, "comment")).toMatchObject({ invalid: true, message: "Напишите, с чем вы не согласны" });
    const sent = await postPageForm(t, "/profile", manager, { intent: "dispute", id: String(score.id), comment: "Я поздоровался полностью" });
    expect(sent.status).toBe(302);
    const again = await postPageForm(t, "/profile", manager, { intent: "dispute", id: String(score.id), comment: "Ещё раз" });
    expect(again.status).toBe(409);
    expect(again.text).toContain("Оценку можно оспорить только один раз: вы её уже оспорили");
    const shown = await getPage(t, "/profile", manager);
    expect(shown.text).toContain("Я поздоровался полностью");
    expect(shown.text).toContain("Ждёт решения администратора.");
    expect(shown.text).not.toContain('data-testid="dispute-form"');
  });

  it("an admin rejects with a reason (asked under its field) or the manager sees the decision", async () => {
    const page = `/quality/call/${callId}`;
    const quality = await getPage(t, "/quality", admin);
    expect(quality.text).toContain("Я поздоровался полностью");
    const noReason = await postPageForm(t, page, admin, { intent: "dispute-reject", reason: "" });
    expect(noReason.status).toBe(400);
    expect(field(noReason.text.slice(noReason.text.indexOf('data-testid="reject-form"')), "reason")).toMatchObject({
      invalid: true,
      message: "Напишите причину отказа",
    });
    const [score] = await t.db.select().from(callScores).where(eq(callScores.callId, callId));
    const ids = score.answers.map((a) => a.id);
    const rescored = await postPageForm(t, page, admin, {
      intent: "dispute-accept",
      [`answers.${ids[0]}`]: "yes",
      [`answers.${ids[1]}`]: "yes",
      reason: "Да, поздоровался",
    });
    expect(rescored.status).toBe(302);
    const shown = await getPage(t, "/profile", manager);
    expect(shown.text).toContain('data-testid="my-score-value">100<');
    expect(shown.text).toContain("(было <!-- -->83<!-- -->)");
    expect(shown.text).toContain("Спор принят, оценка пересмотрена");
    expect(shown.text).toContain("Да, поздоровался");
  });
});
