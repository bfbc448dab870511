import { data } from "@remix-run/node";
import { isAppError } from "../server/core/errors";

// Server code for /leadTemplate: templates and links.
export {
  createTemplate,
  deleteTemplate,
  listTemplates,
  parseTemplateFields,
  toggleTemplateActive,
  updateTemplate,
} from "../server/core/templates/templates";
export { createLink, deleteLink, listLinks, toggleLinkActive, updateLink } from "../server/core/links/links";

/** Like actionError, but hands the submitted values back so a form without JavaScript keeps what was typed. */
export function actionErrorWith<T extends object>(error: unknown, extra: T) {
  if (isAppError(error)) {
    return data({ error: { code: error.code, message: error.message }, ...extra }, { status: error.status });
  }
  throw error;
}
