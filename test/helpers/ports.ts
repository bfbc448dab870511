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
  const held: Array<net.Server | dgram.Socket> = [];
  try {
    while (ports.length < count) {
      const server = await new Promise<net.Server>((resolve, reject) => {
        const tcp = net.createServer();
        tcp.unref();
        tcp.on("error", reject);
        tcp.listen(0, "127.0.0.1", () => resolve(tcp));
      });
      held.push(server);
      const port = (server.address() as net.AddressInfo).port;
      const udp = await new Promise<dgram.Socket | null>((resolve) => {
        const socket = dgram.createSocket("udp4");
        socket.unref();
        socket.once("error", () => {
          socket.close();
          resolve(null);
        });
        socket.bind(port, "127.0.0.1", () => resolve(socket));
      });
      if (!udp) continue;
      held.push(udp);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(
      held.map((each) => new Promise<void>((resolve) => (each instanceof net.Server ? each.close(() => resolve()) : each.close(() => resolve())))),
    );
  }
}
