import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireAdminUser } from "../auth.server";
import { importProgress } from "../bases.server";

/**
 * GET /importbase/progress?uploadId=…: the rows an import under way has written, for the admin who started it
 * (`{ rows: null }` when none is under way in this app process). The import page asks while its save is in flight.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const uploadId = new URL(request.url).searchParams.get("uploadId") ?? "";
  return Response.json({ rows: importProgress(uploadId, user.id) }, { headers: { "Cache-Control": "no-store" } });
}
