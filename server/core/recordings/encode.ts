import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import { once } from "node:events";
import { type LegPorts, legPortsOf, pcapPackets, rtpAudio, SAMPLE_RATE, StereoTimeline, type Channel } from "./pcap-audio";
import { callSpoolFiles, type CallSpoolFiles } from "./spool";

/**
 * The encoding of one recorded call into its audio file (decision 054): its pcaps' G.711 on the stereo time line,
 * the manager left and the client right, piped into Debian's opusenc; Ogg Opus written to `output + ".part"`,
 * renamed to `output` once whole. Used after a call (convert-cli.ts, the whole pcap at once) and during one
 * (follow-cli.ts, the pcap read as rtpengine writes it, so at the hang-up only the last seconds are left).
 * Runs in a child process of the app, never on its event loop.
 */
export const OPUSENC = process.env.OPUSENC_BIN || "opusenc";

export interface EncodeJob {
  output: string;
  /** The call's spool files now (asked again when a pcap is read to its end, and for ports on an unknown one). */
  files: () => Promise<CallSpoolFiles>;
  /** While true the call goes on: the end of its last pcap is waited at. Absent: the files are final. */
  following?: () => boolean;
}

/** The spool files of a call by its SIP Call-ID (the follower finds them itself: they appear during the call). */
export const spoolFilesOf = (spool: string, sipCallId: string) => () => callSpoolFiles(spool, sipCallId);

/** The given files, final (the conversion after the call). */
export const fixedFiles = (pcaps: string[], metadata: string[]) => async (): Promise<CallSpoolFiles> => ({
  pcaps,
  finished: metadata,
  unfinished: [],
});

async function portsOf(files: CallSpoolFiles): Promise<LegPorts> {
  const texts = await Promise.all([...files.finished, ...files.unfinished].map((file) => fs.readFile(file, "utf8").catch(() => "")));
  return legPortsOf(texts.join("\n"));
}

/** Pcaps in the order rtpengine wrote them (a restart during the call starts a new one). */
async function inOrder(pcaps: string[]): Promise<string[]> {
  const stats = await Promise.all(pcaps.map(async (file) => ({ file, stat: await fs.stat(file).catch(() => null) })));
  return stats
    .filter((entry) => entry.stat)
    .sort((a, b) => (a.stat!.birthtimeMs || a.stat!.ctimeMs) - (b.stat!.birthtimeMs || b.stat!.ctimeMs))
    .map((entry) => entry.file);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Encodes the call; answers the audio's length in ms and the pcaps it read. Throws with the reason in Russian. */
export async function encodeCall(job: EncodeJob): Promise<{ ms: number; pcaps: string[] }> {
  const following = job.following ?? (() => false);
  // The legs' ports come from the metadata, which rtpengine writes when the call is set up: wait for both.
  let ports = await portsOf(await job.files());
  while ((ports.manager.size === 0 || ports.client.size === 0) && following()) {
    await pause(500);
    ports = await portsOf(await job.files());
  }
  if (ports.manager.size === 0 || ports.client.size === 0) throw new Error("в метаданных записи нет SDP обеих сторон");

  const part = `${job.output}.part`;
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

  async function encode() {
    const read: string[] = [];
    let portsAskedAt = 0;
    const channelOf = async (port: number): Promise<Channel | null> => {
      if (!ports.manager.has(port) && !ports.client.has(port) && following() && Date.now() - portsAskedAt > 1000) {
        // A leg set up after the call began (a re-INVITE): its port is in the metadata by now.
        portsAskedAt = Date.now();
        ports = await portsOf(await job.files());
      }
      return ports.manager.has(port) ? 0 : ports.client.has(port) ? 1 : null;
    };
    for (;;) {
      const next = (await inOrder((await job.files()).pcaps)).find((file) => !read.includes(file));
      if (!next) {
        if (!following()) break;
        await pause(500); // the call goes on and its pcap is not there yet
        continue;
      }
      read.push(next);
      // Waited at while the call goes on and no newer pcap has started (rtpengine restarted mid-call).
      const keepWaiting = async () => following() && (await job.files()).pcaps.every((file) => read.includes(file));
      for await (const packet of pcapPackets(next, keepWaiting)) {
        const channel = await channelOf(packet.dstPort);
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
    await fs.rename(part, job.output);
    return { ms, pcaps: read };
  }
}
