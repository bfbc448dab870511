import http from "node:http";
import supertest from "supertest";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { securityHeaders } from "../../server/http/security";

/** The page's CSP must let the softphone open its WebSocket to the PBX, wherever the config points it. */
async function connectSrc(env: Record<string, string>): Promise<string> {
  const middleware = securityHeaders(loadConfig({ LOG_LEVEL: "silent", ...env }));
  const server = http.createServer((req, res) => middleware(req, res, () => res.end("ok")));
  const response = await supertest(server).get("/");
  const csp = String(response.headers["content-security-policy"]);
  return csp.split(";").find((part) => part.trim().startsWith("connect-src")) ?? "";
}

describe("CSP connect-src for the softphone", () => {
  it("allows SIP_WS_URL's origin", async () => {
    expect(await connectSrc({ SIP_WS_URL: "wss://pbx.example.com:8089/ws", SIP_DOMAIN: "pbx.example.com" })).toBe(
      "connect-src 'self' wss://pbx.example.com:8089",
    );
  });

  it("allows SPEC's default wss://<SIP_DOMAIN>:443/ws when only SIP_DOMAIN is set", async () => {
    expect(await connectSrc({ SIP_DOMAIN: "pbx.example.com" })).toBe("connect-src 'self' wss://pbx.example.com");
  });

  it("allows nothing else without a softphone", async () => {
    expect(await connectSrc({})).toBe("connect-src 'self'");
  });
});
