import dgram from "node:dgram";
import net from "node:net";

/** A loopback port nobody listens on right now (the OS picks it), for a child server to take. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/**
 * Several such ports, all different, each free for TCP and for UDP: the children take either (rtpengine's control
 * port is UDP, Kamailio's SIP port both). The OS picks a port free for TCP; one some UDP socket holds (a browser's
 * WebRTC socket in a test running beside, CI 2026-12-02: rtpengine «Address already in use») is passed over. Each is
 * held until every one is picked (two picks one after the other may get the same port back once the first is let
 * go: Caddy then had its HTTP and HTTPS on one port and answered TLS with plain HTTP).
 */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const held: Array<() => Promise<void>> = [];
  try {
    while (ports.length < count) {
      const tcp = await listenTcp();
      held.push(() => new Promise((resolve) => tcp.close(() => resolve())));
      const port = (tcp.address() as net.AddressInfo).port;
      const udp = await bindUdp(port);
      if (!udp) continue;
      held.push(() => new Promise((resolve) => udp.close(() => resolve())));
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((release) => release()));
  }
}

/** A TCP server on a loopback port the OS picks. */
function listenTcp(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/** A UDP socket bound to `port`, or null where some other socket holds it. */
function bindUdp(port: number): Promise<dgram.Socket | null> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket("udp4");
    socket.unref();
    socket.once("error", () => {
      socket.close();
      resolve(null);
    });
    socket.bind(port, "127.0.0.1", () => resolve(socket));
  });
}
