import { Readable } from "node:stream";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { accessLogCsv, accessLogCsvName, readAccessFilters } from "../audit.server";
import { actorOf, requireAdminUser } from "../auth.server";
import { isAppError } from "../errors.server";

/**
 * GET /access-log/csv: the access log with the page's filters as a CSV file (admins; the project's CSV, decision
 * 030). A wrong filter is a 400 with its Russian message, before any of the file.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const { db } = context.deps;
  const sent = Object.fromEntries(new URL(request.url).searchParams);
  try {
    const filters = await readAccessFilters(db, sent);
    const body = Readable.toWeb(Readable.from(accessLogCsv(db, actorOf(user), sent))) as ReadableStream;
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(accessLogCsvName(filters))}`,
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return new Response(error.message, { status: error.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
