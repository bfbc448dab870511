import { expect } from "vitest";
import { bearer, createUser, type TestApp } from "./app";
import { createBase, createFilterRow } from "./leads";

/** A manager working leads through /api/v1, as the API tests drive him: his bearer, and the lead he holds (0: none). */
export interface ApiManager {
  id: number;
  login: string;
  token: string;
  auth: ReturnType<typeof bearer>;
  lead: number;
}

/** A manager of `person` (createUser's answer) logged in through the API, holding no lead yet. */
export async function apiManager(t: TestApp, person: Awaited<ReturnType<typeof createUser>>): Promise<ApiManager> {
  const token = await t.tokenFor(person);
  return { id: person.user.id, login: person.login, token, auth: bearer(token), lead: 0 };
}

/** GET /database/filtered-lead for `m`: the lead it answers is the one he holds now. */
export async function takeApiLead(t: TestApp, m: ApiManager, filterId: number) {
  const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filterId}&userId=${m.id}`).set(m.auth);
  if (res.status === 200) m.lead = res.body === "" ? 0 : res.body.id;
  return res;
}

/** PUT /status/update-and-get-lead: `m` presses `statusText` on the lead he holds; the next lead is his then. */
export async function pressApi(t: TestApp, m: ApiManager, filterId: number, statusText: string, extra: Record<string, unknown> = {}) {
  const res = await t.request
    .put("/api/v1/status/update-and-get-lead")
    .set(m.auth)
    .send({ statusText, contactId: m.lead, userId: m.id, passport: "", filterId, clientInfo: "", ...extra });
  if (res.status === 200) m.lead = res.body === "" ? 0 : res.body.id;
  return res;
}

/** A topic with `count` fresh contacts that works `statusIds` again, and two managers each holding the lead he was given. */
export async function twoManagersHoldingLeads(t: TestApp, count: number, statusIds: number[]) {
  const { base, contacts } = await createBase(t.db, { count });
  const people = [await createUser(t.db), await createUser(t.db)];
  const filter = await createFilterRow(t.db, { managerIds: people.map((p) => p.user.id), databaseIds: [base.id], statusIds });
  const [a, b] = [await apiManager(t, people[0]), await apiManager(t, people[1])];
  for (const m of [a, b]) expect((await takeApiLead(t, m, filter.id)).status).toBe(200);
  return { base, contacts, filter, a, b };
}
