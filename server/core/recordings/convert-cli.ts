import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import { once } from "node:events";
import { legPortsOf, pcapPackets, rtpAudio, SAMPLE_RATE, StereoTimeline, type Channel } from "./pcap-audio";

/**
 * The conversion of one recorded call, in a process of its own (started by recordings.ts's worker), so neither
 * the pcap parse nor the encoder runs on the app's event loop and a crash or kill ends only this call's try.
 * Argument: JSON { pcaps, metadata, output }. The audio goes to `output + ".part"`, renamed to `output` once
 * whole. Prints JSON { ms } (the audio's length) on success; exits 1 with the reason on stderr otherwise.
 *
 * Format (decision 054): Ogg Opus, two channels, the manager left and the client right, by Debian's opusenc.
 */
interface Job {
  pcaps: string[];
  metadata: string[];
  output: string;
}

export const OPUSENC = process.env.OPUSENC_BIN || "opusenc";

async function convert({ pcaps, metadata, output }: Job): Promise<number> {
  const ports = legPortsOf((await Promise.all(metadata.map((file) => fs.readFile(file, "utf8")))).join("\n"));
  if (ports.manager.size === 0 || ports.client.size === 0) throw new Error("в метаданных записи нет SDP обеих сторон");
  const part = `${output}.part`;
  const encoder = spawn(
    OPUSENC,
    [
      "--quiet",
      "--raw",
      "--raw-bits",
      "16",
      "--raw-rate",
      String(SAMPLE_RATE),
      "--raw-chan",
      "2",
      "--speech",
      // Complexity 0: a 5-minute call in about 3 s of CPU (10, the default, took 7 s); 48 kbit/s for the two
      // channels keeps a tone's share of its channel where 32 kbit/s at complexity 0 lost a fifth (decision 054).
      "--comp",
      "0",
      "--bitrate",
      "48",
      "--no-phase-inv",
      "-",
      part,
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let encoderError = "";
  encoder.stderr.on("data", (chunk) => (encoderError += String(chunk)));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    encoder.on("exit", (code, signal) => resolve([code, signal]));
    encoder.on("error", reject); // no opusenc: opus-tools not installed
  });
  exited.catch(() => {});
  encoder.stdin.on("error", () => {}); // an encoder that died says why on exit
  const timeline = new StereoTimeline(async (pcm) => {
    if (!encoder.stdin.write(pcm)) await once(encoder.stdin, "drain");
  });
  try {
    return await encode();
  } catch (error) {
    encoder.kill("SIGKILL");
    await fs.rm(part, { force: true });
    throw error;
  }

  async function encode(): Promise<number> {
    // Files in the order rtpengine wrote them (a restart during the call starts a new one).
    const ordered = await Promise.all(
      pcaps.map(async (file) => {
        const stat = await fs.stat(file);
        return { file, at: stat.birthtimeMs || stat.ctimeMs };
      }),
    );
    ordered.sort((a, b) => a.at - b.at);
    for (const { file } of ordered) {
      for await (const packet of pcapPackets(file)) {
        const channel: Channel | null = ports.manager.has(packet.dstPort) ? 0 : ports.client.has(packet.dstPort) ? 1 : null;
        if (channel === null) continue;
        const audio = rtpAudio(packet.payload);
        if (audio) await timeline.add(channel, packet.atMs, audio);
      }
    }
    const ms = await timeline.finish();
    encoder.stdin.end();
    const [code, signal] = await exited;
    if (code !== 0) throw new Error(`opusenc: ${encoderError.trim() || `код ${code ?? signal}`}`);
    if (ms === 0) throw new Error("в записи нет звука G.711");
    await fs.rename(part, output);
    return ms;
  }
}

try {
  const ms = await convert(JSON.parse(process.argv[2]) as Job);
  process.stdout.write(JSON.stringify({ ms }));
} catch (error) {
  process.stderr.write(String((error as Error)?.message ?? error), () => process.exit(1));
}
