import fs from "node:fs/promises";
import path from "node:path";

/**
 * rtpengine's spool folder (its --recording-dir, RECORDINGS_DIR/spool): `pcaps/<call>-<16 hex>.pcap` while and
 * after a call is recorded, `tmp/rtpengine-meta-<call>-<hex>.tmp` while it runs, renamed to
 * `metadata/rtpengine-meta-<call>-<hex>.txt` when rtpengine ends the call. `<call>` is the SIP Call-ID escaped
 * as glib's g_uri_escape_string does (every byte but letters, digits and `-._~` as %XX).
 */
export function escapedCallId(callId: string): string {
  let out = "";
  for (const byte of Buffer.from(callId, "utf8")) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export interface CallSpoolFiles {
  pcaps: string[];
  /** Final metadata files (rtpengine ended the call). */
  finished: string[];
  /** Metadata still being written (rtpengine runs the call, or was restarted during it). */
  unfinished: string[];
}

const HEX16 = /^[0-9a-f]{16}$/;

async function matching(dir: string, prefix: string, suffix: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names
    .filter((name) => name.startsWith(prefix) && name.endsWith(suffix) && HEX16.test(name.slice(prefix.length, -suffix.length)))
    .map((name) => path.join(dir, name));
}

/** The spool's files of one call (several when rtpengine restarted during it and recorded it anew). */
export async function callSpoolFiles(spoolDir: string, sipCallId: string): Promise<CallSpoolFiles> {
  const call = `${escapedCallId(sipCallId)}-`;
  const [pcaps, finished, unfinished] = await Promise.all([
    matching(path.join(spoolDir, "pcaps"), call, ".pcap"),
    matching(path.join(spoolDir, "metadata"), `rtpengine-meta-${call}`, ".txt"),
    matching(path.join(spoolDir, "tmp"), `rtpengine-meta-${call}`, ".tmp"),
  ]);
  return { pcaps, finished, unfinished };
}
