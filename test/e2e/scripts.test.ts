import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterManagers, filterScripts, filters, scripts } from "../../db/schema";
import { ADMIN, bearer, createUser } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { XSS_CORPUS } from "../helpers/xss";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

type Watched = Page & { dialogs: string[] };

/** A page that records every alert/confirm/prompt (an XSS payload firing would open one). */
async function adminPage(javaScript: boolean): Promise<Watched> {
  const page = (await e.newPage({ javaScript })) as Watched;
  page.dialogs = [];
  page.on("dialog", (dialog) => {
    page.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await loginThroughPage(page, ADMIN);
  return page;
}

const rowNames = (page: Page) => page.locator("[data-testid=script-row] span").allTextContents();

describe.each([true, false])("/scripts with JavaScript %s", (javaScript) => {
  it("creates, views, edits and deletes a script", async () => {
    const page = await adminPage(javaScript);
    await page.goto("/scripts");
    if (javaScript) {
      await waitForHydration(page);
      await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
    }
    const name = `Приветствие ${javaScript}`;

    await page.getByRole("link", { name: "Добавить скрипт" }).click();
    const editor = page.locator("[data-testid=script-editor]");
    await editor.waitFor();
    await editor.locator("#script-name").fill(name);
    if (javaScript) {
      // The Slate editor: type, then make the first line a heading and the second bold.
      const area = editor.locator("[data-testid=rich-text-editor]");
      await area.click();
      await page.keyboard.type("Добрый день");
      await editor.getByRole("button", { name: "Заголовок 1" }).click();
      await page.keyboard.press("Enter");
      await editor.getByRole("button", { name: "Заголовок 1" }).click();
      await editor.getByRole("button", { name: "Жирный" }).click();
      await page.keyboard.type("Меня зовут Анна");
    } else {
      await editor.locator("textarea[name=content]").fill("<h1>Добрый день</h1><p><strong>Меня зовут Анна</strong></p><script>alert(1)</script>");
    }
    await editor.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Скрипт сохранён").first().waitFor();
    await expect.poll(() => rowNames(page)).toContain(name);

    const [stored] = (await e.db.select().from(scripts)).filter((s) => s.name === name);
    expect(stored.content).toBe("<h1>Добрый день</h1><p><strong>Меня зовут Анна</strong></p>");

    // View: read-only, watermarked.
    await page.getByRole("link", { name: `Просмотр: ${name}` }).click();
    const view = page.locator("[data-testid=script-view]");
    await view.locator("h1", { hasText: "Добрый день" }).waitFor();
    await expect.poll(() => view.locator("strong").textContent()).toBe("Меня зовут Анна");
    await expect.poll(() => view.locator("[data-testid=watermark] text").textContent()).toBe("Администратор");
    if (javaScript) await page.keyboard.press("Escape");
    else await page.goto("/scripts");

    // Edit: rename it.
    await page.getByRole("link", { name: `Изменить: ${name}` }).click();
    await page.locator("[data-testid=script-editor] #script-name").fill(`${name} (новое)`);
    await page.locator("[data-testid=script-editor]").getByRole("button", { name: "Сохранить" }).click();
    await expect.poll(() => rowNames(page)).toContain(`${name} (новое)`);
    const [edited] = (await e.db.select().from(scripts)).filter((s) => s.name === `${name} (новое)`);
    expect(edited.content).toBe("<h1>Добрый день</h1><p><strong>Меня зовут Анна</strong></p>");

    // Deleting asks first (issue 17): nothing is gone until the question is answered.
    await page.getByRole("link", { name: `Удалить: ${name} (новое)` }).click();
    const question = page.locator("[data-testid=delete-script]");
    await question.getByText(`Скрипт «${name} (новое)» будет удалён. Отменить это нельзя.`).waitFor();
    expect(await rowNames(page)).toContain(`${name} (новое)`);
    await question.getByRole("link", { name: "Отмена" }).click();
    await question.waitFor({ state: "detached" });
    expect((await e.db.select().from(scripts)).some((s) => s.name === `${name} (новое)`)).toBe(true);
    await page.getByRole("link", { name: `Удалить: ${name} (новое)` }).click();
    await question.getByRole("button", { name: "Удалить" }).click();
    await page.getByText("Скрипт удалён").first().waitFor();
    await expect.poll(() => rowNames(page)).not.toContain(`${name} (новое)`);
    if (javaScript) expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    expect(page.dialogs).toEqual([]);
  });
});

describe("XSS corpus on the page", () => {
  it.each([true, false])("renders none of the payloads as active code (JavaScript %s)", async (javaScript) => {
    const token = await e.adminToken();
    const res = await e.request
      .post("/api/v1/scripts")
      .set(bearer(token))
      .send({ name: `XSS ${javaScript}`, content: `<p>начало</p>${XSS_CORPUS.join("\n")}<p>конец</p>` });
    expect(res.status).toBe(200);
    const page = await adminPage(javaScript);
    for (const url of [`/scripts?view=${res.body.id}`, `/scripts/view/${res.body.id}`]) {
      await page.goto(url);
      const viewer = page.locator("[data-testid=script-viewer]");
      await viewer.getByText("начало").waitFor();
      const active = await viewer.evaluate((root) => {
        const html = root.querySelector(".script-html")!;
        const bad = html.querySelectorAll("script, iframe, object, embed, img, svg, math, style, form, input, meta, base, video");
        const handlers = Array.from(html.querySelectorAll("*")).flatMap((el) =>
          Array.from(el.attributes).filter((a) => /^on/i.test(a.name) || /javascript:|data:/i.test(a.value)).map((a) => a.name),
        );
        return { tags: bad.length, handlers };
      });
      expect(active).toEqual({ tags: 0, handlers: [] });
    }
    await page.waitForTimeout(300);
    expect(page.dialogs).toEqual([]);
  });
});

describe("the script viewer from the sidebar", () => {
  async function managerWithScript(login: string) {
    const [filter] = await e.db.insert(filters).values({ name: `Тематика ${login}` }).returning();
    const manager = await createUser(e.db, { login, displayName: `Оператор ${login}`, gettingFilter: filter.id });
    const [given] = await e.db.insert(scripts).values({ name: `Скрипт для ${login}`, content: "<p>Текст для оператора</p>" }).returning();
    const [other] = await e.db.insert(scripts).values({ name: `Чужой для ${login}`, content: "<p>секрет</p>" }).returning();
    await e.db.insert(filterManagers).values({ filterId: filter.id, userId: manager.user.id });
    await e.db.insert(filterScripts).values({ filterId: filter.id, scriptId: given.id });
    return { manager, given, other };
  }

  it("opens a modal with a toast, the watermark grid, and copy, cut and the context menu blocked", async () => {
    const { manager, given } = await managerWithScript("viewer-js");
    const page = await e.newPage();
    await loginThroughPage(page, manager);
    await page.goto("/profile");
    await waitForHydration(page);
    const sidebar = page.locator("[data-testid=sidebar]");
    await sidebar.getByText("Скрипты").click();
    await expect.poll(() => sidebar.locator("[data-testid=sidebar-script]").allTextContents()).toEqual([given.name]);
    await sidebar.getByText(given.name).click();
    await page.getByText("Загружаю скрипт").first().waitFor();
    const dialog = page.locator("[data-testid=script-viewer-dialog]");
    await dialog.getByText("Текст для оператора").waitFor();
    expect(await dialog.getByRole("heading").textContent()).toBe(given.name);
    expect(new URL(page.url()).pathname).toBe("/profile");

    const watermark = dialog.locator("[data-testid=watermark]");
    expect(await watermark.locator("text").textContent()).toBe("Оператор viewer-js");
    expect([await watermark.getAttribute("data-columns"), await watermark.getAttribute("data-rows")]).toEqual(["100", "100"]);
    const [cellW, cellH, rectW, rectH] = await watermark.evaluate((svg) => {
      const p = svg.querySelector("pattern")!;
      const r = svg.querySelector("rect")!;
      return [p.getAttribute("width"), p.getAttribute("height"), r.getAttribute("width"), r.getAttribute("height")].map(Number);
    });
    expect([rectW / cellW, rectH / cellH]).toEqual([100, 100]);

    const viewer = dialog.locator("[data-testid=script-viewer]");
    const blocked = await viewer.evaluate((el) => {
      const target = el.querySelector("p")!;
      const fire = (event: Event) => !target.dispatchEvent(event);
      return {
        copy: fire(new ClipboardEvent("copy", { bubbles: true, cancelable: true })),
        cut: fire(new ClipboardEvent("cut", { bubbles: true, cancelable: true })),
        contextmenu: fire(new MouseEvent("contextmenu", { bubbles: true, cancelable: true })),
        userSelect: getComputedStyle(el).userSelect,
      };
    });
    expect(blocked).toEqual({ copy: true, cut: true, contextmenu: true, userSelect: "none" });
    await viewer.getByText("Текст для оператора").click({ button: "right" });
    await page.getByText("Контекстное меню отключено").first().waitFor();
  });

  it("opens the viewer page without JavaScript, and refuses a script that does not reach the manager", async () => {
    const { manager, given, other } = await managerWithScript("viewer-nojs");
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    await page.goto("/profile");
    const entry = page.locator("[data-testid=sidebar] [data-testid=sidebar-script]");
    expect(await entry.allTextContents()).toEqual([given.name]);
    await page.goto((await entry.getAttribute("href"))!);
    expect(new URL(page.url()).pathname).toBe(`/scripts/view/${given.id}`);
    expect(await page.locator("h1").textContent()).toBe(given.name);
    const viewer = page.locator("[data-testid=script-viewer]");
    expect(await viewer.getByText("Текст для оператора").count()).toBe(1);
    expect(await viewer.locator("[data-testid=watermark] text").textContent()).toBe("Оператор viewer-nojs");
    expect(await viewer.evaluate((el) => getComputedStyle(el).userSelect)).toBe("none");

    const response = await page.goto(`/scripts/view/${other.id}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toBe("Скрипт не найден");
    expect(await page.getByText("секрет").count()).toBe(0);
  });
});

describe("blocked inspection shortcuts", () => {
  it("warns on F12, Ctrl+Shift+I, Ctrl+Shift+C and Ctrl+U after hydration", async () => {
    const page = await adminPage(true);
    await page.goto("/scripts");
    await waitForHydration(page);
    for (const keys of ["F12", "Control+Shift+I", "Control+Shift+C", "Control+U"]) {
      const shown = page.getByText("Комбинация клавиш заблокирована");
      await page.keyboard.press(keys);
      await shown.first().waitFor();
      const prevented = await page.evaluate((combo) => {
        const [key, ...mods] = combo.split("+").reverse();
        const event = new KeyboardEvent("keydown", {
          key: key.length === 1 ? key.toLowerCase() : key,
          ctrlKey: mods.includes("Control"),
          shiftKey: mods.includes("Shift"),
          bubbles: true,
          cancelable: true,
        });
        return !document.body.dispatchEvent(event);
      }, keys);
      expect(prevented).toBe(true);
    }
    const plain = await page.evaluate(() => !document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "a", bubbles: true, cancelable: true })));
    expect(plain).toBe(false);
  });
});
