import fs from "node:fs";
import { Readable } from "node:stream";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, requireUser } from "../auth.server";
import { recordingAnswer } from "../calls.server";
import { isAppError } from "../errors.server";

/**
 * GET /recordings/:id: a call's recording for the page's <audio> (the session cookie; byte ranges for seeking),
 * ?download=1 as a file (admins), ?play=<key> from a page's player (issue 39). Who may hear which call is recordings.ts's rule; a refusal is a plain Russian
 * message with its status (403, 404).
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const query = new URL(request.url).searchParams;
  const download = query.get("download") === "1";
  try {
    const answer = await recordingAnswer(context.deps.db, context.deps.recordings.folder, actorOf(user), params.id, {
      download,
      range: request.headers.get("range") ?? undefined,
      // The page's player's own key (CallRecording): its reports of what it played find its play.
      playKey: query.get("play"),
    });
    if (answer.status === 416) return new Response(null, { status: 416, headers: answer.headers });
    const body = Readable.toWeb(fs.createReadStream(answer.file, { start: answer.start, end: answer.end })) as ReadableStream;
    return new Response(body, { status: answer.status, headers: answer.headers });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return new Response(error.message, { status: error.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
