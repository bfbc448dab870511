import readline from "node:readline";
import { encodeCall, spoolFilesOf } from "./encode";

/**
 * The recordings of the calls in progress that this app instance follows (decision 054, 2026-11-29): one process
 * for all of them, an opusenc per call, each call's pcap read as rtpengine writes it. At the hang-up only the last
 * seconds are left to encode, so a call of any length is ready seconds after it, and the work is spread over the
 * call instead of queued behind the calls that ended with it.
 *
 * Lines of JSON on stdin: { "follow": { id, spool, sipCallId, output } } starts a call; { "end": id } says its files
 * are final (rtpengine ended it). On stdout: { id, ms, pcaps } when its audio is whole, or { id, error }. When stdin
 * closes (the app is gone) the process ends, and the calls it followed are converted from their pcaps as usual.
 */
interface Follow {
  id: number;
  spool: string;
  sipCallId: string;
  output: string;
}

const ended = new Set<number>();
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

function follow({ id, spool, sipCallId, output }: Follow) {
  encodeCall({ output, files: spoolFilesOf(spool, sipCallId), following: () => !ended.has(id) })
    .then(
      ({ ms, pcaps }) => say({ id, ms, pcaps }),
      (error) => say({ id, error: String((error as Error)?.message ?? error) }),
    )
    .finally(() => ended.delete(id));
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line) as { follow?: Follow; end?: number };
  if (message.follow) follow(message.follow);
  if (message.end !== undefined) ended.add(message.end);
});
lines.on("close", () => process.exit(0));
