import path from "node:path";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbacks, contacts as contacts_, leadEvents, users } from "../../db/schema";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { layoutFaults, screenshot } from "../helpers/screen-checks";
import { setTheme } from "../helpers/screens";

/**
 * Issue 41 §7: the manager writes his callback's note again where he sees his callbacks (Мои перезвоны), and the
 * admin anyone's in his table, with JavaScript and without it; a note too long is refused in Russian at its field,
 * and the list fits a phone.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

async function managerWithCallback(name: string) {
  const manager = await createUser(e.db, { displayName: name });
  const { base, contacts } = await createBase(e.db, { count: 2 });
  const filter = await createFilterRow(e.db, { name: `Тематика ${name}`, managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [] });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
  // As a press makes it: the client's «Перезвонить» and the callback it scheduled (his other client is the lead he gets).
  const [event] = await e.db
    .insert(leadEvents)
    .values({ contactId: contacts[0].id, databaseId: base.id, userId: manager.user.id, filterId: filter.id, statusText: "Перезвонить" })
    .returning();
  const s = await statusesByText(e.db);
  await e.db
    .update(contacts_)
    .set({ statusId: s["Перезвонить"].id, statusAt: new Date(), lastUserId: manager.user.id })
    .where(eq(contacts_.id, contacts[0].id));
  const [cb] = await e.db
    .insert(callbacks)
    .values({
      leadEventId: event.id,
      contactId: contacts[0].id,
      databaseId: base.id,
      userId: manager.user.id,
      filterId: filter.id,
      statusText: "Перезвонить",
      note: "Спросить про рассрочку",
      dueAt: new Date(Date.now() + 3600_000),
    })
    .returning();
  return { manager, cb };
}

describe("the callback's note on Мои перезвоны", () => {
  for (const javaScript of [true, false]) {
    it(`is written again, and a note too long is refused at its field (JavaScript ${javaScript ? "on" : "off"}), at 390 px`, async () => {
      const { manager, cb } = await managerWithCallback(javaScript ? "Ольга Заметкина" : "Павел Безскриптов");
      const page = await e.newPage({ javaScript });
      await page.setViewportSize({ width: 390, height: 844 });
      await loginThroughPage(page, manager);
      await page.goto("/callbacks");
      if (javaScript) await waitForHydration(page);
      const row = page.locator("[data-testid=callbacks-upcoming-list] [data-testid=callback-row]");
      await expect.poll(() => row.locator("[data-testid=callback-note]").textContent()).toBe("Спросить про рассрочку");

      await row.getByText("Изменить заметку").click();
      const field = row.getByLabel("Заметка к перезвону");
      await field.fill("я".repeat(501));
      // Without JavaScript the server refuses it (400) and the page comes back with the field open.
      if (!javaScript) allowRefusal(400);
      await row.getByRole("button", { name: "Сохранить заметку" }).click();
      const error = page.locator(`[data-testid=callback-row] [data-field-error]`);
      await parsed(error);
      expect(await error.textContent()).toBe("Заметка к перезвону не длиннее 500 символов");
      await expect.poll(() => page.getByLabel("Заметка к перезвону").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("Заметка к перезвону").inputValue()).toBe("я".repeat(501));
      const [kept] = await e.db.select({ note: callbacks.note }).from(callbacks).where(eq(callbacks.id, cb.id));
      expect(kept.note).toBe("Спросить про рассрочку");
      // Nothing of the page is wider than the phone: the field and its message wrap.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      await page.getByLabel("Заметка к перезвону").fill("Звонить после 15:00, жена дома");
      await page.getByRole("button", { name: "Сохранить заметку" }).click();
      await expect.poll(() => page.locator("[data-testid=callback-note]").textContent()).toBe("Звонить после 15:00, жена дома");
      await expect.poll(() => page.getByText("Заметка сохранена").count()).toBeGreaterThan(0);
      // Saved: the editor is closed again and says no error.
      expect(await page.locator("[data-testid=callback-row] [data-field-error]").count()).toBe(0);
      expect(await page.locator("[data-testid=callback-note-editor]").getAttribute("open")).toBeNull();
      const [saved] = await e.db.select({ note: callbacks.note }).from(callbacks).where(eq(callbacks.id, cb.id));
      expect(saved.note).toBe("Звонить после 15:00, жена дома");
    });
  }
});

/** A screenshot for a person to look at, where SCREENS_DIR names a folder (none otherwise, as in CI). */
async function shot(page: Page, name: string) {
  if (process.env.SCREENS_DIR) await screenshot(page, path.join(process.env.SCREENS_DIR, `${name}.png`));
}

describe("the callback's note in the admin's table", () => {
  for (const javaScript of [true, false]) {
    it(`is written again for any manager, and a note too long is refused at its row's field (JavaScript ${javaScript ? "on" : "off"})`, async () => {
      const { manager, cb } = await managerWithCallback(javaScript ? "Ирина Админова" : "Борис Безскриптов");
      // A second callback of his, so that the message has a wrong row to land in.
      const { cb: other } = await managerWithCallback(javaScript ? "Ирина Вторая" : "Борис Второй");
      await e.db.update(callbacks).set({ userId: manager.user.id }).where(eq(callbacks.id, other.id));
      const page = await e.newPage({ javaScript });
      await page.setViewportSize({ width: 1280, height: 800 });
      await loginThroughPage(page, ADMIN);
      const listed = `/callbacks?userId=${manager.user.id}&filterId=`;
      await page.goto(listed);
      if (javaScript) await waitForHydration(page);
      // Saved without a full reload: what the page's script keeps would be gone after one.
      if (javaScript) await page.evaluate(() => Object.assign(window, { stayed: true }));
      const rows = page.locator("[data-testid=callbacks-table] [data-testid=callback-row]");
      await expect.poll(() => rows.count()).toBe(2);
      const row = rows.filter({ has: page.locator(`#callback-note-${cb.id}`) });
      expect(await row.locator("[data-testid=callback-note]").textContent()).toBe("Спросить про рассрочку");

      await row.getByText("Изменить заметку").click();
      await row.getByLabel("Заметка к перезвону").fill("я".repeat(501));
      // Without JavaScript the server refuses it (400) and the page comes back with the field open.
      if (!javaScript) allowRefusal(400);
      await row.getByRole("button", { name: "Сохранить заметку" }).click();
      await parsed(row.locator("[data-field-error]"));
      expect(await row.locator("[data-field-error]").textContent()).toBe("Заметка к перезвону не длиннее 500 символов");
      expect(await page.locator("[data-field-error]").count()).toBe(1);
      expect(await row.getByLabel("Заметка к перезвону").getAttribute("aria-invalid")).toBe("true");
      expect(await row.getByLabel("Заметка к перезвону").inputValue()).toBe("я".repeat(501));
      const [kept] = await e.db.select({ note: callbacks.note }).from(callbacks).where(eq(callbacks.id, cb.id));
      expect(kept.note).toBe("Спросить про рассрочку");
      // The open editor and its message take no room from «Передать»'s column, and a phone's card holds them.
      const faults: string[] = [];
      for (const size of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await page.setViewportSize(size);
        faults.push(...(await layoutFaults(page)).map((f) => `${size.width}: ${f}`));
        await shot(page, `callbacks-admin-refused-${size.width}${javaScript ? "" : "-nojs"}`);
        if ((await page.evaluate(() => document.documentElement.scrollWidth)) > size.width) faults.push(`${size.width}: the page scrolls sideways`);
        // On a phone's card a cell is a grid of its label and its value: the reason is the state's, never in the label's column.
        const underLabel = await row.locator("td[data-label=Состояние]").evaluate((td) => {
          const label = parseFloat(getComputedStyle(td).gridTemplateColumns);
          return td.querySelector("[data-testid=callback-reason]")!.getBoundingClientRect().left < td.getBoundingClientRect().left + label;
        });
        if (size.width === 390 && underLabel) faults.push(`${size.width}: the reason lies in the state's label column`);
      }
      expect(faults).toEqual([]);

      await page.setViewportSize({ width: 1280, height: 800 });
      await row.getByLabel("Заметка к перезвону").fill("Звонить после 15:00, жена дома");
      const told = page.getByText("Заметка сохранена").first().waitFor();
      await row.getByRole("button", { name: "Сохранить заметку" }).click();
      await told;
      await expect.poll(() => row.locator("[data-testid=callback-note]").textContent()).toBe("Звонить после 15:00, жена дома");
      // Saved: the editor is closed again, the list is still his, the other row untouched.
      expect(await row.locator("[data-field-error]").count()).toBe(0);
      expect(await row.locator("[data-testid=callback-note-editor]").getAttribute("open")).toBeNull();
      expect(new URL(page.url()).search).toBe(`?userId=${manager.user.id}&filterId=`);
      expect(await rows.count()).toBe(2);
      if (javaScript) expect(await page.evaluate(() => "stayed" in window)).toBe(true);
      const [saved] = await e.db.select({ note: callbacks.note }).from(callbacks).where(eq(callbacks.id, cb.id));
      expect(saved.note).toBe("Звонить после 15:00, жена дома");
      const [untouched] = await e.db.select({ note: callbacks.note }).from(callbacks).where(eq(callbacks.id, other.id));
      expect(untouched.note).toBe("Спросить про рассрочку");

      if (process.env.SCREENS_DIR) {
        // For a person to look at: a few notes, one of them long, one editor open, each theme and width.
        await e.db
          .update(callbacks)
          .set({ note: "Перезвонить после обеда.\n" + "Спрашивал про рассрочку на 12 месяцев и доставку в область. ".repeat(3) })
          .where(eq(callbacks.id, other.id));
        for (const theme of ["light", "dark"] as const) {
          await setTheme(page.context(), e.baseUrl, theme);
          for (const width of [390, 1440]) {
            await page.setViewportSize({ width, height: 900 });
            await page.goto(listed);
            if (javaScript) await waitForHydration(page);
            await row.getByText("Изменить заметку").click();
            await shot(page, `callbacks-admin-${width}-${theme}${javaScript ? "" : "-nojs"}`);
          }
        }
      }
    });
  }
});
