import { eq } from "drizzle-orm";
import type { Browser, Cookie } from "playwright-core";
import { createDb } from "../db/client";
import {
  contacts,
  databases,
  exports,
  filterDatabases,
  filterManagers,
  filters,
  filterStatuses,
  links,
  scripts,
  statuses,
  templates,
  users,
} from "../db/schema";
import { passwordHint } from "../common/credentials";
import { hashPassword } from "../server/auth/password";
import { AROUND_THE_CLOCK } from "./lib";

/**
 * The small install the browser benches load pages of (bandwidth, slow-link): an admin and a manager, a base of
 * 200 contacts, a topic with a template, links, a script, reports and an export; and their sessions.
 */
export const ADMIN = { login: "bench-admin", password: "Bench-password-1", accessKey: "BENCHKEY00000001" };
export const MANAGER = { login: "bench-manager", password: "Bench-password-2", accessKey: "BENCHKEY00000002" };

/** A realistic small install: a base, a topic with a template, links, a script, reports and an export. */
export async function fillDatabase(db: Awaited<ReturnType<typeof createDb>>["db"]) {
  const [manager] = await db
    .insert(users)
    .values({
      login: MANAGER.login,
      displayName: "Менеджер",
      accessKey: MANAGER.accessKey,
      passwordHash: await hashPassword(MANAGER.password),
      passwordHint: passwordHint(MANAGER.password),
    })
    .returning();
  const [base] = await db.insert(databases).values({ name: "База Киев", contactsCount: 200 }).returning();
  await db.insert(contacts).values(
    Array.from({ length: 200 }, (_, i) => ({
      databaseId: base.id,
      name: `Клиент ${i + 1}`,
      phone: `+38050${String(1_000_000 + i).slice(1)}`,
      phoneKey: `38050${String(1_000_000 + i).slice(1)}`,
      city: "Киев",
      address: `ул. Шевченко, ${i + 1}`,
    })),
  );
  const [template] = await db
    .insert(templates)
    .values({
      name: "Анкета",
      isActive: true,
      templateFields: JSON.stringify([
        { label: "Сумма", type: "text" },
        { label: "Комментарий", type: "textarea" },
      ]),
    })
    .returning();
  const [filter] = await db
    .insert(filters)
    .values({ name: "Кредиты", templateId: template.id, ...AROUND_THE_CLOCK })
    .returning();
  await db.insert(filterManagers).values({ filterId: filter.id, userId: manager.id });
  // Every seeded status belongs to the topic.
  const statusIds = (await db.select({ id: statuses.id }).from(statuses)).map((r) => r.id);
  await db.insert(filterStatuses).values(statusIds.map((statusId) => ({ filterId: filter.id, statusId })));
  await db.insert(filterDatabases).values({ filterId: filter.id, databaseId: base.id });
  await db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.id));
  await db.insert(links).values([
    { name: "CRM", link: "https://crm.example/", isActive: true },
    { name: "Карта", link: "https://maps.example/", isActive: true },
  ]);
  await db.insert(scripts).values({ name: "Приветствие", content: "<p>Здравствуйте! <strong>Меня зовут</strong> …</p>" });
  await db.insert(exports).values({
    name: "Выгрузка",
    databaseIds: [base.id],
    statusIds: statusIds.slice(0, 1),
    isExported: true,
    progress: 100,
    startTime: new Date(),
    endTime: new Date(),
  });
  return { managerId: manager.id };
}

export async function sessionCookies(browser: Browser, baseUrl: string, who: typeof ADMIN): Promise<Cookie[]> {
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  await page.goto("/auth");
  await page.fill("#login", who.login);
  await page.fill("#password", who.password);
  await page.fill("#accessKey", who.accessKey);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith("/auth")), page.click("button[type=submit]")]);
  const cookies = await context.cookies();
  await context.close();
  return cookies;
}

export async function coldContext(browser: Browser, baseUrl: string, cookies: Cookie[], javaScript: boolean) {
  const context = await browser.newContext({ baseURL: baseUrl, javaScriptEnabled: javaScript });
  if (cookies.length) await context.addCookies(cookies);
  return context;
}
