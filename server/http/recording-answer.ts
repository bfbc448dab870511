import type { Db } from "../../db/client";
import type { Actor } from "../core/actor";
import { openRecording, type RecordingsFolder, type ServedBytes, sharedRecording } from "../core/recordings/recordings";

/**
 * A recording over HTTP, for both its routes (the page's /recordings/:id and the API's /calls/:id/recording): the
 * Range header read here, the answer's status and headers made here; who may hear it and whether the request is a
 * play to write down are core's (openRecording). range-parser (Express's) was weighed and not taken: it refuses a
 * suffix longer than the file (`bytes=-100000` of a smaller file), which RFC 9110 serves whole, as this does.
 */
export type RecordingAnswer =
  { status: 200 | 206; headers: Record<string, string>; file: string; start: number; end: number } | { status: 416; headers: Record<string, string> };

/**
 * GET of a recording for the <audio> element and downloads: the whole file or the one byte range asked (206), so
 * the player seeks. A play is written down when a request starts one (startsAPlay); a download every time.
 */
export async function recordingAnswer(
  db: Db,
  folder: RecordingsFolder,
  actor: Actor,
  rawCallId: unknown,
  request: { download: boolean; range: string | undefined; playKey?: string | null },
): Promise<RecordingAnswer> {
  const { file, size, served, name } = await openRecording(db, folder, actor, rawCallId, {
    download: request.download,
    served: (bytes) => byteRange(request.range, bytes),
    playKey: request.playKey,
  });
  const headers: Record<string, string> = {
    "Content-Type": "audio/ogg",
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, no-store",
  };
  if (request.download) headers["Content-Disposition"] = `attachment; filename="${name}"`;
  return answerOf(file, size, served, headers);
}

/** A recording by the signed link of a `recording.ready` event (issue 44): no account; core writes the fetch down. */
export async function sharedRecordingAnswer(db: Db, folder: RecordingsFolder, raw: unknown, range: string | undefined): Promise<RecordingAnswer> {
  const { file, size, served } = await sharedRecording(db, folder, raw, (bytes) => byteRange(range, bytes));
  return answerOf(file, size, served, {
    "Content-Type": "audio/ogg",
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, no-store",
  });
}

/** The whole file (200), the one range asked (206), or 416. */
function answerOf(file: string, size: number, served: ServedBytes, headers: Record<string, string>): RecordingAnswer {
  if (served === "bad") return { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } };
  if (served === "whole") return { status: 200, headers: { ...headers, "Content-Length": String(size) }, file, start: 0, end: size - 1 };
  return {
    status: 206,
    headers: { ...headers, "Content-Length": String(served.end - served.start + 1), "Content-Range": `bytes ${served.start}-${served.end}/${size}` },
    file,
    start: served.start,
    end: served.end,
  };
}

/** An HTTP Range header against a file's size: the one range served (206), "whole" (200), or "bad" (416). */
export function byteRange(header: string | undefined, size: number): ServedBytes {
  if (!header) return "whole";
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return "bad";
  let start: number;
  let end: number;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "bad";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || end < start) return "bad";
  return { start, end };
}
