import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddress, forwardedAddress } from "../../server/http/client-address";

/** A request as Node hands it over: the socket's peer and the headers the proxies wrote. */
const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} }) as unknown as IncomingMessage;

describe("the client's address behind TRUST_PROXY proxies", () => {
  it("reads the header only as far back as there are proxies of ours", () => {
    // The client claims 6.6.6.6; our outer proxy saw 203.0.113.7; our inner proxy (the socket) saw the outer one.
    const req = request("10.0.0.2", "6.6.6.6, 203.0.113.7, 10.0.0.1");
    expect(forwardedAddress(req, 0)).toBe("10.0.0.2");
    expect(forwardedAddress(req, 1)).toBe("10.0.0.1");
    expect(forwardedAddress(req, 2)).toBe("203.0.113.7");
    expect(forwardedAddress(req, 3)).toBe("6.6.6.6");
    expect(forwardedAddress(req, 9)).toBe("6.6.6.6");
  });

  it("counts by the proxy itself when the header holds no address", () => {
    expect(forwardedAddress(request("10.0.0.2", "unknown"), 1)).toBe("10.0.0.2");
    expect(forwardedAddress(request("10.0.0.2"), 1)).toBe("10.0.0.2");
  });

  it("throttles IPv6 clients by their /64 and IPv4-mapped ones by their IPv4", () => {
    expect(clientAddress(request("2001:db8:1:2:aaaa::1"), 0)).toBe("2001:db8:1:2::/64");
    expect(clientAddress(request("::ffff:192.0.2.9"), 0)).toBe("192.0.2.9");
  });
});
