import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbacks, contacts as contacts_, leadEvents, users } from "../../db/schema";
import { createUser } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Issue 41 §7: the manager writes his callback's note again where he sees his callbacks (Мои перезвоны), with
 * JavaScript and without it; a note too long is refused in Russian at its field, and the list fits a phone.
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
