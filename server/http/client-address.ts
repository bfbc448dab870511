import type { IncomingMessage } from "node:http";
import net from "node:net";
import proxyAddr from "proxy-addr";

/**
 * The address a request came from, as login throttling counts it. Both login paths (the API and the page's
 * action) read it here, from the raw Node request, so they count alike.
 *
 * `trustedProxies` (TRUST_PROXY) is how many proxies of ours stand in front of the app. Each appends the
 * address it received the request from to X-Forwarded-For, so the client is that many hops back from the
 * socket; whatever a client wrote further left is its own claim and never read. With 0 the header is ignored.
 * IPv6 addresses count by their /64: one host usually holds a whole /64 and could rotate through it.
 */
export function clientAddress(request: IncomingMessage, trustedProxies: number): string {
  return throttleKey(forwardedAddress(request, trustedProxies));
}

/**
 * The client's own address: the socket's, or with TRUST_PROXY the one that many hops back in X-Forwarded-For.
 * The hop counting is proxy-addr's, the library Express and Fastify count with themselves.
 */
export function forwardedAddress(request: IncomingMessage, trustedProxies: number): string {
  const socketAddress = request.socket?.remoteAddress ?? "";
  if (trustedProxies <= 0 || !socketAddress) return socketAddress;
  const candidate = proxyAddr(request, (_address, hop) => hop < trustedProxies);
  // A proxy that sends something that is not an address is misconfigured: count by the proxy itself.
  return net.isIP(candidate) ? candidate : socketAddress;
}

function throttleKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (net.isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(":")}::/64`;
  return address || "unknown";
}

/** The eight groups of an IPv6 address, "::" expanded (a zone id such as %eth0 dropped). */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.split("%")[0].toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array(missing).fill("0"), ...right].map((group) => group.replace(/^0+(?=.)/, ""));
}
