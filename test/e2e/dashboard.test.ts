import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { calls, contacts, filters, scorecardCriteria, users } from "../../db/schema";
import { ADMIN, bearer, createUser } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase as createLeadBase, createFilterRow, statusesByText } from "../helpers/leads";
import { createBase, pressStatus } from "../helpers/money";
import { insertAnsweredCall } from "../helpers/calls";
import { toneWav } from "../helpers/recordings";
import { LAYOUT_THEMES } from "../helpers/screen-checks";
import { setTheme } from "../helpers/screens";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

/** Legend rows as "label percent" (the colour swatch is an empty span). */
const legend = async (page: Page, chart: string) =>
  page.locator(`[data-testid=${chart}] [data-testid=legend-item]`).evaluateAll((items) =>
    items.map((li) =>
      [...li.querySelectorAll("span")]
        .map((s) => s.textContent?.trim())
        .filter(Boolean)
        .join(" "),
    ),
  );

describe("the admin dashboard", () => {
  it("shows today's numbers, the top managers and the status shares, rendered on the server", async () => {
    const olga = await createUser(e.db, { displayName: "Ольга" });
    const ivan = await createUser(e.db, { displayName: "Иван" });
    await createBase(e.db, "Утренняя", 120);
    await createBase(e.db, "Старая", 80, new Date("2024-05-01T10:00:00Z"));
    await pressStatus(e.db, { userId: olga.user.id, statusText: "Отказ" });
    await pressStatus(e.db, { userId: olga.user.id, statusText: "Отказ" });
    await pressStatus(e.db, { userId: olga.user.id, statusText: "Заявка", isReport: true });
    await pressStatus(e.db, { userId: ivan.user.id, statusText: "Перезвонить" });
    await pressStatus(e.db, { userId: ivan.user.id, statusText: "Недозвон", isTechnical: true });
    await pressStatus(e.db, { userId: ivan.user.id, statusText: "Недозвон", isTechnical: true });
    await pressStatus(e.db, { userId: ivan.user.id, statusText: "Заявка", isReport: true, at: new Date("2024-05-01T10:00:00Z") });

    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/");
    await page.getByText("Statistics for Today").waitFor();
    const card = async (id: string) => (await page.locator(`[data-testid=${id}] p`).nth(1).textContent())?.trim();
    expect(await card("stat-databases")).toBe("1");
    expect(await card("stat-contacts")).toBe("120");
    expect(await card("stat-processed")).toBe("4");
    expect(await card("stat-transfers")).toBe("1");
    expect(await card("stat-total-databases")).toBe("2");
    expect(await card("stat-total-contacts")).toBe("200");
    const top = (await page.locator("[data-testid=top-managers] li").allTextContents()).map((t) => t.replace(/\s+/g, " "));
    expect(top).toEqual(["1. Ольга3", "2. Иван1"]);
    // Six presses today: Отказ 2, Недозвон 2, Заявка 1, Перезвонить 1.
    expect(await legend(page, "status-pie")).toEqual(["Недозвон 33%", "Отказ 33%", "Заявка 17%", "Перезвонить 17%"]);
    expect(await page.locator("[data-testid=status-pie] svg path").count()).toBe(4);
    // Each slice and legend swatch has its status's own colour (seeded), not a colour picked by rank.
    const fills = await page
      .locator("[data-testid=status-pie] svg path")
      .evaluateAll((paths) => Object.fromEntries(paths.map((p) => [p.getAttribute("data-label"), p.getAttribute("fill")])));
    expect(fills).toEqual({ Недозвон: "#6b7280", Отказ: "#dc2626", Заявка: "#22c55e", Перезвонить: "#2563eb" });
    const swatches = await page
      .locator("[data-testid=status-pie] [data-testid=legend-item] span[aria-hidden=true]")
      .evaluateAll((spans) => spans.map((s) => (s as HTMLElement).style.backgroundColor));
    expect(swatches).toEqual(["rgb(107, 114, 128)", "rgb(220, 38, 38)", "rgb(34, 197, 94)", "rgb(37, 99, 235)"]);
  });

  it("highlights the hovered slice and greys the others", async () => {
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto("/");
    await waitForHydration(page);
    const slice = page.locator('[data-testid=status-pie] path[data-label="Отказ"]');
    const original = await slice.getAttribute("fill");
    await slice.hover();
    await page.locator('[data-testid=status-pie] path[data-active="true"]').waitFor();
    expect(await slice.getAttribute("fill")).toBe(original);
    const others = await page
      .locator('[data-testid=status-pie] path:not([data-label="Отказ"])')
      .evaluateAll((paths) => paths.map((p) => p.getAttribute("fill")));
    expect(new Set(others)).toEqual(new Set(["#cbd5e1"]));
    await page.mouse.move(0, 0);
    await page.locator('[data-testid=status-pie] path[data-active="true"]').waitFor({ state: "detached" });
    expect(await page.locator('[data-testid=status-pie] path[fill="#cbd5e1"]').count()).toBe(0);
    // The server-rendered SVG hydrates without a mismatch: React would log one, which fails the test.
  });
});

describe("today's call numbers (issue 29)", () => {
  it("are a table per breakdown at 1440 px and cards at 390 px, where nothing scrolls sideways, in both themes", async () => {
    const ruslan = await createUser(e.db, { displayName: "Руслан Длиннофамильный-Константинопольский" });
    const topic = await createFilterRow(e.db, {
      name: "Кредиты наличными для пенсионеров",
      managerIds: [ruslan.user.id],
      databaseIds: [],
      statusIds: [],
    });
    const now = new Date();
    await e.db.insert(calls).values(
      [null, 65, null, 3600].map((talk) => ({
        userId: ruslan.user.id,
        filterId: topic.id,
        number: "+380501112233",
        direction: "out" as const,
        startedAt: now,
        answeredAt: talk === null ? null : now,
        endedAt: now,
        talkSeconds: talk ?? 0,
        outcome: talk === null ? ("no_answer" as const) : ("answered" as const),
      })),
    );
    // Two calls in (issue 42): one answered, one that rang and ended unanswered.
    await e.db.insert(calls).values(
      [true, false].map((answered, i) => ({
        userId: ruslan.user.id,
        number: `38050111223${i}`,
        direction: "in" as const,
        byProxy: true,
        sipCallId: `dashboard-in-${i}`,
        startedAt: now,
        answeredAt: answered ? now : null,
        endedAt: now,
        talkSeconds: answered ? 30 : 0,
        outcome: answered ? ("answered" as const) : ("no_answer" as const),
      })),
    );
    const dir = process.env.SCREENS_DIR;
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    for (const theme of LAYOUT_THEMES) {
      await setTheme(page.context(), e.baseUrl, theme);
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto("/");
        await waitForHydration(page);
        // The whole page: an element shot of the block lay under the sticky header.
        if (dir) await page.screenshot({ path: path.join(dir, `call-numbers-${theme}-${width}.png`), fullPage: true });
        expect(await page.locator("[data-testid=call-inbound]").textContent()).toBe("Входящие: 2, отвечено 1, пропущено 1, перезвонили 0");
        expect(await page.locator("[data-testid=call-total-talk] dd").textContent()).toBe("1:01:05");
        expect(await page.locator("[data-testid=call-total-percent] dd").textContent()).toBe("50\u00a0%");
        const desk = width >= 1100;
        expect(await page.locator("[data-testid=call-topics]").isVisible()).toBe(desk);
        expect(await page.locator("[data-testid=call-managers-cards]").isVisible()).toBe(!desk);
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(sideways).toBeLessThanOrEqual(0);
      }
    }
    // On a phone a row's numbers read as label and value.
    const card = (await page.locator("[data-testid=call-managers-cards] li").first().innerText()).replace(/\s+/g, " ");
    expect(card).toBe("Руслан Длиннофамильный-Константинопольский Попытки 4 Дозвон 2 Дозвон, % 50 % Время разговоров 1:01:05 Попыток на клиента —");
  });
});

describe("personal statistics", () => {
  it("shows a manager's own pie on /profile: 8 named slices plus Другое", async () => {
    const manager = await createUser(e.db, { login: "busy", displayName: "Занятой" });
    const counts = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    for (const [i, n] of counts.entries()) {
      for (let k = 0; k < n; k++) await pressStatus(e.db, { userId: manager.user.id, statusText: `Статус ${i + 1}` });
    }
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    await page.goto("/profile");
    const items = await legend(page, "personal-pie");
    expect(items).toHaveLength(9);
    // 55 presses: 10 is 18%, ..., 3 is 5%; the last two (2 + 1) are Другое, 5%.
    expect(items[0]).toBe("Статус 1 18%");
    expect(items[7]).toBe("Статус 8 5%");
    expect(items[8]).toBe("Другое 5%");
    await page.locator("#content form[action='/logout'] button").waitFor();
  });

  it("says there is not enough information for a new manager, and his home links to Клиенты", async () => {
    const manager = await createUser(e.db, { login: "newbie" });
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    await page.goto("/profile");
    await page.getByText("Не хватает информации для сбора статистики").waitFor();
    await page.goto("/");
    await page.getByText("Не хватает информации для сбора статистики").waitFor();
    expect(await page.locator("main a[href='/leadpanel']").textContent()).toBe("Клиенты");
    expect(await page.getByText("Statistics for Today").count()).toBe(0);
  });
});

/** The topic's scorecard, put through the API as an admin's editor does; its criteria's ids in order. */
async function putScorecard(topicId: number, criteria: Array<{ text: string; weight: number; critical?: boolean }>): Promise<number[]> {
  const card = await e.request
    .put(`/api/v1/scorecards/${topicId}`)
    .set(bearer(await e.adminToken()))
    .send({ criteria });
  expect(card.status).toBe(200);
  return card.body.criteria.map((c: { id: number }) => c.id);
}

describe("call scoring (issue 39 §3)", () => {
  it("a comment's moment seeks the scoring screen's player there; the scorecard, scoring and dispute screens look right", async () => {
    const anna = await createUser(e.db, { login: "qc-anna", displayName: "Анна Оценкина" });
    const topic = await createFilterRow(e.db, { name: "Кредитные карты", managerIds: [anna.user.id], databaseIds: [], statusIds: [] });
    await e.db.update(filters).set({ managersHearRecordings: true }).where(eq(filters.id, topic.id));
    // A recording as the app makes them (Ogg Opus by opusenc): 40 s of a tone.
    const folder = e.app.deps.recordings.folder;
    fs.mkdirSync(folder.audio, { recursive: true });
    const file = `qc-${process.pid}.ogg`;
    execFileSync("opusenc", ["--quiet", toneWav(440, 40), path.join(folder.audio, file)]);
    const call = await insertAnsweredCall(e.db, anna.user.id, topic.id, {
      startedAgoMs: 120_000,
      number: "+380671234567",
      talkSeconds: 40,
      recording: "ready",
      recordingFile: file,
      recordingMs: 40_000,
    });
    const admin = bearer(await e.adminToken());
    const ids = await putScorecard(topic.id, [
      { text: "Поздоровался и представился", weight: 10 },
      { text: "Выяснил потребность клиента", weight: 30 },
      { text: "Не грубил и не перебивал клиента", weight: 20, critical: true },
      { text: "Назвал условия и цену", weight: 40 },
    ]);
    for (const [at, text] of [
      ["0:05", "Хорошее приветствие"],
      ["0:25", "Здесь нужно было спросить о доходе"],
    ]) {
      await e.request.post(`/api/v1/scores/calls/${call.id}/comments`).set(admin).send({ at, text });
    }

    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto(`/quality/call/${call.id}`);
    await waitForHydration(page);
    const player = page.locator("audio[data-score-player]");
    expect(await player.evaluate((audio: HTMLAudioElement) => audio.currentTime)).toBe(0);
    await page.locator("[data-seek='25']").click();
    await page.waitForFunction(() => {
      const audio = document.querySelector<HTMLAudioElement>("audio[data-score-player]");
      return audio !== null && !audio.seeking && audio.currentTime >= 25 && audio.currentTime < 30;
    });
    expect(new URL(page.url()).pathname).toBe(`/quality/call/${call.id}`);
    // It plays from there.
    await page.waitForFunction(() => (document.querySelector<HTMLAudioElement>("audio[data-score-player]")?.currentTime ?? 0) > 25.3);
    await player.evaluate((audio: HTMLAudioElement) => audio.pause());

    if (!process.env.SCREENS_DIR) return;
    const dir = process.env.SCREENS_DIR;
    fs.mkdirSync(dir, { recursive: true });
    const manager = await e.newPage();
    await loginThroughPage(manager, anna);
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page.context(), e.baseUrl, theme);
      await setTheme(manager.context(), e.baseUrl, theme);
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await manager.setViewportSize({ width, height: 900 });
        await page.goto(`/quality/scorecard/${topic.id}`);
        await waitForHydration(page);
        await page.screenshot({ path: path.join(dir, `scorecard-${theme}-${width}.png`), fullPage: true });
        await page.goto(`/quality/call/${call.id}`);
        await waitForHydration(page);
        await page.screenshot({ path: path.join(dir, `scoring-${theme}-${width}.png`), fullPage: true });
      }
    }
    await e.request
      .post(`/api/v1/scores/calls/${call.id}`)
      .set(admin)
      .send({ answers: Object.fromEntries(ids.map((id, i) => [id, ["yes", "partly", "yes", "no"][i]])), comment: "Цену не назвал" });
    await e.request
      .post(`/api/v1/scores/${(await e.request.get(`/api/v1/scores/calls/${call.id}`).set(admin)).body.score.id}/dispute`)
      .set(bearer(await e.tokenFor(anna)))
      .send({ comment: "Цену я назвал на 0:35, послушайте" });
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page.context(), e.baseUrl, theme);
      await setTheme(manager.context(), e.baseUrl, theme);
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await manager.setViewportSize({ width, height: 900 });
        await manager.goto("/profile");
        await waitForHydration(manager);
        await manager.screenshot({ path: path.join(dir, `my-scores-${theme}-${width}.png`), fullPage: true });
        await page.goto(`/quality/call/${call.id}`);
        await waitForHydration(page);
        await page.screenshot({ path: path.join(dir, `dispute-${theme}-${width}.png`), fullPage: true });
        await page.goto("/quality");
        await waitForHydration(page);
        await page.screenshot({ path: path.join(dir, `quality-${theme}-${width}.png`), fullPage: true });
        await page.goto("/");
        await waitForHydration(page);
        await page.locator("[data-testid=week-scores]").screenshot({ path: path.join(dir, `week-scores-${theme}-${width}.png`) });
      }
    }
  });
});

describe("scores in the manager's call history (issue 39 §3)", () => {
  it("his lead's history shows his scored call's score, which leads to it on /profile (JavaScript on); light and dark, 390 and 1440", async () => {
    const olga = await createUser(e.db, { login: "qc-olga", displayName: "Ольга Оценкина" });
    const { base } = await createLeadBase(e.db, { count: 1, prefix: "Оценённый клиент" });
    const statuses = await statusesByText(e.db);
    const topic = await createFilterRow(e.db, {
      name: "Оценки в истории",
      managerIds: [olga.user.id],
      databaseIds: [base.id],
      statusIds: Object.values(statuses).map((s) => s.id),
    });
    await e.db.update(users).set({ gettingFilter: topic.id }).where(eq(users.id, olga.user.id));
    const page = await e.newPage();
    await loginThroughPage(page, olga);
    await page.goto("/leadpanel");
    await waitForHydration(page);
    const [lead] = await e.db.select().from(contacts).where(eq(contacts.heldBy, olga.user.id));
    const call = await insertAnsweredCall(e.db, olga.user.id, topic.id, {
      startedAgoMs: 300_000,
      contactId: lead.id,
      number: lead.phone,
      endedAt: new Date(Date.now() - 225_000),
      talkSeconds: 75,
    });
    const admin = bearer(await e.adminToken());
    const [hello, price] = await putScorecard(topic.id, [
      { text: "Поздоровался", weight: 10 },
      { text: "Назвал цену", weight: 10 },
    ]);
    const scored = await e.request
      .post(`/api/v1/scores/calls/${call.id}`)
      .set(admin)
      .send({ answers: { [hello]: "yes", [price]: "partly" } });
    expect(scored.status).toBe(200);

    await page.reload();
    await waitForHydration(page);
    const history = page.getByTestId("client-history");
    // (10 + 10 × 0.5) / 20 = 75
    expect(await history.getByTestId("history-score-value").textContent()).toBe("75");
    expect(await history.getByTestId("history-score").textContent()).toContain("Оценка75Подробнее в профиле");

    if (process.env.SCREENS_DIR) {
      const dir = process.env.SCREENS_DIR;
      fs.mkdirSync(dir, { recursive: true });
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page.context(), e.baseUrl, theme);
        for (const width of [1440, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await page.goto("/leadpanel");
          await waitForHydration(page);
          await page.screenshot({ path: path.join(dir, `history-score-${theme}-${width}.png`), fullPage: true });
        }
      }
      await setTheme(page.context(), e.baseUrl, "light");
      await page.goto("/leadpanel");
      await waitForHydration(page);
    }

    // Its link leads to the score on /profile: its answers, and the dispute he may send from there.
    await page.getByTestId("client-history").getByRole("link", { name: "Подробнее в профиле" }).click();
    await page.waitForURL((url) => url.pathname === "/profile" && url.hash === `#score-${call.id}`);
    const target = page.locator(`#score-${call.id}`);
    expect(await target.getByTestId("my-score-value").textContent()).toBe("75");
    expect(await target.getByTestId("dispute-form").count()).toBe(1);
    await page.context().close();
  });
});

describe("the scorecard editor with JavaScript (issue 39 §3)", () => {
  it("adds and removes rows in place, checks in the browser (nothing sent), saves", async () => {
    const topic = await createFilterRow(e.db, { name: "Редактор листа", managerIds: [], databaseIds: [], statusIds: [] });
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto(`/quality/scorecard/${topic.id}`);
    await waitForHydration(page);
    const posts: string[] = [];
    page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
    await page.getByTestId("add-criterion").click();
    await page.getByTestId("add-criterion").click();
    expect(await page.getByTestId("criterion-row").count()).toBe(2);
    expect(posts).toEqual([]);
    await page.locator("[name='criteria[1].text']").fill("Не грубил");
    await page.locator("[name='criteria[1].critical']").check();
    await page.getByRole("button", { name: "Сохранить" }).click();
    // The first row's text is empty: said under it, nothing sent.
    await page.locator("[data-field-error]", { hasText: "Введите текст пункта" }).waitFor();
    expect(posts).toEqual([]);
    await page.getByRole("button", { name: "Удалить пункт 1" }).click();
    expect(await page.getByTestId("criterion-row").count()).toBe(1);
    await page.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Оценочный лист сохранён").first().waitFor();
    const stored = await e.db.select().from(scorecardCriteria).where(eq(scorecardCriteria.filterId, topic.id));
    expect(stored.map((c) => [c.text, c.weight, c.critical])).toEqual([["Не грубил", 10, true]]);
  });
});
