import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { registeredApiRoutes } from "../../server/api/plugin";
import { answersJson, mainAnswerCode } from "../../server/api/schemas/examples";
import { useTestApp } from "../helpers/app";

/**
 * The OpenAPI description lists every route /api/v1 has (issue 44): each registered route is in it with its answers
 * (and its body where it takes one), and it lists nothing the API does not serve.
 */
const t = useTestApp();
type Media = { schema?: unknown; example?: unknown };
type Operation = {
  summary?: string;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
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

  const documentedRoutes = () =>
    registeredApiRoutes
      .get(t.app.deps)!
      .filter((r) => r.method !== "HEAD" && !r.hidden)
      .map((route) => ({
        route,
        key: `${route.method} ${openapiPath(route.url)}`,
        operation: paths[openapiPath(route.url)]?.[route.method.toLowerCase()],
      }));

  it("gives every route an example of its body and of its main answer (a JSON one: not a file, not a 204)", () => {
    const missing: string[] = [];
    let answers = 0;
    for (const { route, key, operation } of documentedRoutes()) {
      const body = operation?.requestBody?.content?.["application/json"];
      if (route.hasBody && body && body.example === undefined) missing.push(`${key}: no example of its body`);
      const code = mainAnswerCode(route.response);
      if (!code || !answersJson(route.response![code])) continue;
      answers += 1;
      if (operation?.responses?.[code]?.content?.["application/json"]?.example === undefined)
        missing.push(`${key}: no example of its ${code} answer`);
    }
    expect(missing).toEqual([]);
    expect(answers).toBeGreaterThan(100);
  });

  it("gives examples its own schemas accept: the body as core parses it, the answer as the API sends it", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { route, key, operation } of documentedRoutes()) {
      const body = operation?.requestBody?.content?.["application/json"];
      if (body?.example !== undefined && route.body instanceof z.core.$ZodType) {
        checked += 1;
        const parsed = z.safeParse(route.body, body.example);
        if (!parsed.success) wrong.push(`${key} body: ${z.prettifyError(parsed.error)} in ${JSON.stringify(body.example)}`);
      }
      const code = mainAnswerCode(route.response);
      const answer = code ? operation?.responses?.[code]?.content?.["application/json"] : undefined;
      if (code && answer?.example !== undefined && answersJson(route.response![code])) {
        checked += 1;
        const sent = z.safeEncode(route.response![code] as z.ZodType, answer.example);
        if (!sent.success) wrong.push(`${key} ${code}: ${z.prettifyError(sent.error)} in ${JSON.stringify(answer.example)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(150);
  });

  it("shows an integration's bodies with examples (webhooks, API keys)", () => {
    const example = (p: string) => paths[p].post.requestBody?.content?.["application/json"]?.example;
    expect(example("/api/v1/webhooks")).toEqual({ url: "https://crm.example.com/hooks/leaddesk", events: ["status.pressed"], enabled: true });
    expect(example("/api/v1/api-keys")).toEqual({ name: "amoCRM", scopes: ["read"] });
  });
});
