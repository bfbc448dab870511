import { randomBytes } from "node:crypto";
import dgram from "node:dgram";
import bencode from "bencode";

/**
 * The test's own look into rtpengine (issue 39): its ng control port on loopback, asked directly (not through the
 * app's gate), for what it holds: `list` (the Call-IDs of its calls) and `query` (one call's parties by tag).
 */
async function ask(port: number, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const socket = dgram.createSocket("udp4");
  const cookie = randomBytes(6).toString("hex");
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`rtpengine on ${port} did not answer ${String(request.command)}`)), 2_000);
      socket.on("message", (message) => {
        const space = message.indexOf(0x20);
        if (message.subarray(0, space).toString() !== cookie) return;
        clearTimeout(timer);
        resolve(texts(bencode.decode(message.subarray(space + 1))) as Record<string, unknown>);
      });
      socket.send(Buffer.concat([Buffer.from(`${cookie} `), Buffer.from(bencode.encode(request))]), port, "127.0.0.1");
    });
  } finally {
    socket.close();
  }
}

function texts(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  if (Array.isArray(value)) return value.map(texts);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, texts(v)]));
  return value;
}

/** The Call-IDs rtpengine holds now. */
export async function relayCalls(port: number): Promise<string[]> {
  const answer = await ask(port, { command: "list", limit: 1000 });
  return (answer.calls as string[] | undefined) ?? [];
}

type Stream = { "local port"?: number };
type Party = { medias?: Array<{ streams?: Stream[] }> };

/**
 * The tags of the parties rtpengine holds in this call with ports of their own ([] when it holds no such call).
 * `query` keeps listing a party deleted from a live call, with its ports gone: such a party is not counted.
 */
export async function relayParties(port: number, callId: string): Promise<string[]> {
  const answer = await ask(port, { command: "query", "call-id": callId });
  if (answer.result !== "ok") return [];
  const parties = (answer.tags as Record<string, Party> | undefined) ?? {};
  return Object.entries(parties)
    .filter(([, party]) => (party.medias ?? []).some((media) => (media.streams ?? []).some((stream) => Number(stream["local port"] ?? 0) > 0)))
    .map(([tag]) => tag);
}

/** Waits until rtpengine holds no call with this Call-ID; answers how long that took (ms), or throws after `timeoutMs`. */
export async function relayForgets(port: number, callId: string, timeoutMs = 5_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const held = await relayCalls(port);
    if (!held.includes(callId)) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `rtpengine still holds ${callId} ${timeoutMs} ms on (it holds ${held.length} call(s); parties ${JSON.stringify(await relayParties(port, callId))})`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
