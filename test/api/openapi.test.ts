import { beforeAll, describe, expect, it } from "vitest";
import { registeredApiRoutes } from "../../server/api/plugin";
import { useTestApp } from "../helpers/app";

/**
 * The OpenAPI description lists every route /api/v1 has (issue 44): each registered route is in it with its answers
 * (and its body where it takes one), and it lists nothing the API does not serve.
 */
const t = useTestApp();
type Operation = {
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  const res = await t.request.get("/api/v1/openapi.json");
  expect(res.status).toBe(200);
  paths = res.body.paths;
});

const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

describe("the OpenAPI description", () => {
  it("has every registered route, and only those", () => {
    const routes = registeredApiRoutes.get(t.app.deps)!.filter((r) => r.method !== "HEAD" && !r.hidden);
    expect(routes.length).toBeGreaterThan(100);
    const registered = new Set(routes.map((r) => `${r.method} ${openapiPath(r.url)}`));
    const documented = new Set(Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
    expect(
      [...registered].filter((key) => !documented.has(key)),
      "routes missing from openapi.json",
    ).toEqual([]);
    expect(
      [...documented].filter((key) => !registered.has(key)),
      "openapi.json lists routes the API does not serve",
    ).toEqual([]);
  });

  it("gives every route a summary and its answers, and every route that takes a JSON body that body", () => {
    const wrong: string[] = [];
    for (const route of registeredApiRoutes.get(t.app.deps)!.filter((r) => r.method !== "HEAD" && !r.hidden)) {
      const key = `${route.method} ${openapiPath(route.url)}`;
      const operation = paths[openapiPath(route.url)]?.[route.method.toLowerCase()];
      if (!operation) continue;
      if (!operation.summary) wrong.push(`${key}: no summary`);
      const answers = Object.keys(operation.responses ?? {});
      if (!answers.some((code) => /^2\d\d$/.test(code))) wrong.push(`${key}: no success answer`);
      if (route.hasBody && !operation.requestBody) wrong.push(`${key}: its body is not described`);
      const body = operation.requestBody?.content?.["application/json"]?.schema as { properties?: object } | undefined;
      if (route.hasBody && body && !body.properties && !JSON.stringify(body).includes("properties")) wrong.push(`${key}: a body with no fields`);
    }
    expect(wrong).toEqual([]);
  });

  it("shows an integration's bodies with examples (webhooks, API keys)", () => {
    const example = (p: string) => (paths[p].post as { description?: string }).description ?? "";
    expect(example("/api/v1/webhooks")).toContain("crm.example.com");
    expect(example("/api/v1/api-keys")).toContain("amoCRM");
  });
});
