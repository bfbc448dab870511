import net from "node:net";

/** A loopback port nobody listens on right now (the OS picks it), for a child server to take. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/**
 * Several such ports, all different: each is held until every one is picked (two picks one after the other may get
 * the same port back once the first is let go: Caddy then had its HTTP and HTTPS on one port and answered TLS with
 * plain HTTP).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.unref();
          server.on("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
