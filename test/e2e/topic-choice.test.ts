import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { contacts, filters } from "../../db/schema";
import { createUser } from "../helpers/app";
import { type E2E, loginThroughPage, startE2E, waitForHydration } from "../helpers/browser";
import { createBase, createFilterRow } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * Issue 41, item 12, in Chromium: /getFilters shows each topic's hours and its clients free now, and the panel of a
 * topic whose clients all wait for their hours says when calls resume; with JavaScript and without, at 390 and
 * 1440, in both themes (screenshots into SCREENS_DIR when it is set).
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

const LOOKS = [
  { width: 1440, dark: false },
  { width: 390, dark: true },
  { width: 390, dark: false },
  { width: 1440, dark: true },
];

async function pageFor(javaScript: boolean, look: { width: number; dark: boolean }) {
  const page = await e.newPage({ javaScript });
  await page.setViewportSize({ width: look.width, height: look.width <= 390 ? 844 : 900 });
  if (look.dark) await page.context().addCookies([{ name: "theme", value: "ImRhcmsi", url: e.baseUrl }]);
  return page;
}

async function shoot(page: Page, name: string) {
  if (!process.env.SCREENS_DIR) return;
  await page.screenshot({ path: `${process.env.SCREENS_DIR}/${name}.png`, fullPage: true });
}

describe("choosing a topic", () => {
  for (const javaScript of [true, false]) {
    it(`shows the topics' hours and free clients, and the waiting panel says when calls resume (JavaScript ${javaScript ? "on" : "off"})`, async () => {
      let n = 0;
      for (const look of LOOKS) {
        n += 1;
        const tag = `${javaScript ? "js" : "nojs"}-${n}`;
        const manager = await createUser(e.db, { displayName: `Оператор ${tag}` });
        const day = await createBase(e.db, { count: 5 });
        const evening = await createBase(e.db, { count: 3 });
        const open = await createFilterRow(e.db, {
          name: "Кредиты наличными",
          managerIds: [manager.user.id],
          databaseIds: [day.base.id],
          statusIds: [],
        });
        const closed = await createFilterRow(e.db, {
          name: "Продление договоров",
          managerIds: [manager.user.id],
          databaseIds: [evening.base.id],
          statusIds: [],
        });
        await e.db
          .update(filters)
          .set({ callsFrom: "00:00", callsUntil: "00:00", callDays: [1, 2, 3, 4, 5, 6, 7] })
          .where(eq(filters.id, open.id));
        const [from, until] = [clockIn("Europe/Kyiv", 180), clockIn("Europe/Kyiv", 240)];
        await e.db
          .update(filters)
          .set({ callsFrom: from, callsUntil: until, callDays: [1, 2, 3, 4, 5, 6, 7] })
          .where(eq(filters.id, closed.id));
        await e.db.update(contacts).set({ listed: true }).where(eq(contacts.id, day.contacts[0].id));

        const page = await pageFor(javaScript, look);
        await loginThroughPage(page, manager);
        await page.waitForURL((url) => url.pathname === "/getFilters");
        if (javaScript) await waitForHydration(page);
        const choices = page.getByTestId("topic-choice");
        expect(await choices.count()).toBe(2);
        const first = choices.filter({ hasText: "Кредиты наличными" });
        const second = choices.filter({ hasText: "Продление договоров" });
        expect(await first.getByTestId("topic-hours").textContent()).toBe("Часы звонков: ежедневно круглосуточно · по местному времени клиента");
        expect(await first.getByTestId("topic-free").textContent()).toBe("Можно звонить сейчас: 4");
        expect(await second.getByTestId("topic-hours").textContent()).toBe(`Часы звонков: ежедневно ${from}–${until} · по местному времени клиента`);
        expect(await second.getByTestId("topic-free").textContent()).toBe("Можно звонить сейчас: 0 из 3 (у остальных нерабочее время)");
        // Nothing of the page is out of the window at this width.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await shoot(page, `getFilters-${look.width}-${look.dark ? "dark" : "light"}-${javaScript ? "js" : "nojs"}`);

        await second.click();
        await page.waitForURL((url) => url.pathname === "/leadpanel");
        const note = page.getByTestId("no-leads-hours");
        await note.waitFor();
        const said = (await note.textContent()) ?? "";
        expect(said).toMatch(
          new RegExp(
            `^У остальных клиентов тематики сейчас нерабочее время по их часовому поясу: звонки продолжатся в ${from} по их времени, через (2 ч 5\\d мин|3 ч|3 ч 1 мин)$`,
          ),
        );
        expect(await page.getByTestId("no-leads").getByText("Для вас нет доступных лидов").count()).toBe(1);
        // Two topics: «Сменить тематику» is offered.
        expect(await page.getByRole("button", { name: "Сменить тематику" }).count()).toBe(1);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await shoot(page, `waiting-panel-${look.width}-${look.dark ? "dark" : "light"}-${javaScript ? "js" : "nojs"}`);
        await page.close();
      }
    }, 180_000);
  }
});
