import type { LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, requireAdminUser } from "../auth.server";
import { exportFile, isAppError } from "../bases.server";
import { redirectWithToast } from "../toast.server";

/** GET /exportbase/:id/download: the stored file; a failure goes back to the page with the server's message. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  try {
    const { filename, contentType, data } = await exportFile(context.deps.db, actorOf(user), params.id);
    return new Response(new Uint8Array(data), {
      headers: {
        "Content-Type": contentType,
        "Content-Disposition": `attachment; filename="${filename}"`,
        "Content-Length": String(data.length),
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return redirectWithToast("/exportbase", { type: "error", message: error.message });
  }
}
