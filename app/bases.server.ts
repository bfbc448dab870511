import {
  unstable_composeUploadHandlers as composeUploadHandlers,
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
  type AppLoadContext,
  type UploadHandler,
} from "@remix-run/node";
import * as z from "zod";
import { importPostSchema, previewPostSchema, sheetPostSchema } from "../common/schemas/imports";
import type { Actor } from "#server/core/actor";
import { isAppError } from "#server/core/errors";
import { IMPORT_FAILURE, ONLY_DUPLICATES, importBase, previewBase, type ImportResult, type Preview } from "#server/core/bases/import";
import { othersBusy } from "#server/deps";
import { CONSENT_FIELD_HELP, MAPPING_FIELDS, MAPPING_LABELS, type MappingField, ZONE_FIELD_HELP } from "#server/core/bases/mapping";
import { fileRequired, keepUpload, refuseOversizedBody, removeUpload, storeUpload, sweepUploads, uploadPath } from "#server/core/bases/uploads";
import { followImport } from "#server/core/bases/import-progress";
import "./context.server";
import { formIntent, readFields } from "./forms.server";

// Server code reaches route modules only through *.server.ts files (the browser bundle empties them).
export { listBases, deleteBase, baseOptions, statusColumns } from "#server/core/bases/bases";
import { searchContacts, searchRowView } from "#server/core/bases/search";
export { searchContacts, SEARCH_LIMIT, NOTHING_FOUND } from "#server/core/bases/search";
export { listExports, createExport, deleteExport, deleteExports, restartExport, exportFile } from "#server/core/exports/exports";
export { IMPORT_SUCCESS, IMPORT_FAILURE } from "#server/core/bases/import";
export { importProgress } from "#server/core/bases/import-progress";

/** What the import page shows after a post: the mapping step, the result, or an error (keeping the mapping). */
export type ImportState =
  | { step: "mapping"; name: string; uploadId: string; fileName: string; preview: Preview }
  | { step: "done"; result: ImportResult }
  | {
      step: "error";
      message: string;
      detail: string;
      /** Nothing went wrong, but nothing was imported (every contact a duplicate): shown as a warning. */
      warning?: boolean;
      mapping?: { name: string; uploadId: string; fileName: string; preview: Preview };
    };

/** Streams the `file` part to the uploads folder (size-limited) and answers its id; other fields stay in memory. */
const fileUploadHandler: UploadHandler = async ({ name, filename, data }) => {
  if (name !== "file") return undefined;
  if (!filename) {
    for await (const _chunk of data) {
      /* an empty file input: drain it */
    }
    return undefined;
  }
  const upload = await storeUpload(data, filename);
  if (!upload) return undefined;
  return `${keepUpload(upload)}:${filename}`;
};

/** A page form that may carry the `file` part: streamed to the uploads folder, answered as "uploadId:fileName". */
export async function readForm(request: Request): Promise<FormData> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!type.startsWith("multipart/form-data")) return request.formData();
  refuseOversizedBody(request.headers.get("Content-Length"));
  return parseMultipartFormData(request, composeUploadHandlers(fileUploadHandler, createMemoryUploadHandler({ maxPartSize: 64 * 1024 })));
}

/** The `file` part as readForm leaves it: "uploadId:fileName" once stored, else "" (none sent, or not stored). */
const storedFileForm = z.object({ file: z.string().catch("") });

/**
 * The import page's two posts, for the page action (JavaScript off) and the upload resource route (JavaScript
 * on): `preview` stores the file and answers its first rows with a suggested mapping; `import` imports the stored
 * file with the chosen mapping. Name and file are required (SPEC §5).
 */
export async function handleImportPost(request: Request, context: AppLoadContext, actor: Actor): Promise<{ state: ImportState; status: number }> {
  let form: FormData;
  try {
    form = await readForm(request);
  } catch (error) {
    const message = isAppError(error) ? error.message : "Не удалось получить файл: попробуйте ещё раз";
    return { state: { step: "error", message: IMPORT_FAILURE, detail: message }, status: 400 };
  }
  const intent = formIntent(form);

  if (intent === "preview") {
    // Read on its own, before the name: a refused name still removes the stored file.
    const { file: stored } = readFields(form, storedFileForm);
    const [uploadId, ...rest] = stored.split(":");
    const fileName = rest.join(":");
    try {
      const { name } = readFields(form, previewPostSchema);
      if (!stored) throw fileRequired();
      sweepUploads();
      const preview = await previewBase(context.deps.db, actor, { file: { path: uploadPath(uploadId), name: fileName } });
      return { state: { step: "mapping", name, uploadId, fileName, preview }, status: 200 };
    } catch (error) {
      if (stored) removeUpload(safePath(uploadId));
      if (!isAppError(error)) throw error;
      return { state: { step: "error", message: IMPORT_FAILURE, detail: error.message }, status: error.status };
    }
  }

  // The sheet picker: the stored file's preview, of the chosen sheet.
  if (intent === "sheet") {
    const post = readPost(form, sheetPostSchema);
    if ("refused" in post) return post.refused;
    const { name, uploadId, fileName, sheet } = post.fields;
    let path: string | null = null;
    try {
      path = uploadPath(uploadId);
      const preview = await previewBase(context.deps.db, actor, { file: { path }, sheet });
      return { state: { step: "mapping", name, uploadId, fileName, preview }, status: 200 };
    } catch (error) {
      if (!isAppError(error)) throw error;
      // An empty sheet: the file stays, with the preview of the sheet shown by default, so another can be picked.
      let mapping: Extract<ImportState, { step: "error" }>["mapping"];
      if (path) {
        try {
          mapping = { name, uploadId, fileName, preview: await previewBase(context.deps.db, actor, { file: { path } }) };
        } catch {
          removeUpload(path);
        }
      }
      return { state: { step: "error", message: IMPORT_FAILURE, detail: error.message, mapping }, status: error.status };
    }
  }

  if (intent === "import") {
    // The name is core's to refuse (the same schema), after this: a refused save keeps the file and the choices.
    const post = readPost(form, importPostSchema);
    if ("refused" in post) return post.refused;
    const { name, uploadId, fileName, sheet, hasHeader, mappings } = post.fields;
    let path: string | null = null;
    const progress = followImport(uploadId, actor.id);
    try {
      path = uploadPath(uploadId);
      const result = await context.deps.metrics.importJob(
        importBase(
          context.deps.db,
          actor,
          { name, mappings, hasHeader, sheet, file: { path, name: fileName } },
          {
            phoneRegion: context.deps.config.phoneRegion,
            signal: request.signal,
            othersBusy: othersBusy(context.deps),
            onProgress: progress.onProgress,
          },
        ),
      );
      removeUpload(path);
      return { state: { step: "done", result }, status: 200 };
    } catch (error) {
      if (!isAppError(error)) throw error;
      // Keep the file and the mapping so the admin can fix a name or a column and save again.
      let mapping: Extract<ImportState, { step: "error" }>["mapping"];
      if (path) {
        try {
          const preview = await previewBase(context.deps.db, actor, { file: { path, name: fileName }, sheet }).catch(() =>
            previewBase(context.deps.db, actor, { file: { path: path!, name: fileName } }),
          );
          mapping = { name, uploadId, fileName, preview: keepChoices(preview, mappings) };
        } catch {
          removeUpload(path);
        }
      }
      if (error.code === ONLY_DUPLICATES) {
        const state = { step: "error", message: error.message, detail: "", mapping, warning: true } as const;
        return { state, status: error.status };
      }
      return { state: { step: "error", message: IMPORT_FAILURE, detail: error.message, mapping }, status: error.status };
    } finally {
      progress.end();
    }
  }
  return { state: { step: "error", message: IMPORT_FAILURE, detail: "Неизвестное действие" }, status: 400 };
}

/** A step's fields read by its schema (common/schemas/imports.ts), or the error step with the schema's Russian message. */
function readPost<S extends z.ZodType>(form: FormData, schema: S): { fields: z.output<S> } | { refused: { state: ImportState; status: number } } {
  try {
    return { fields: readFields(form, schema) };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { refused: { state: { step: "error", message: IMPORT_FAILURE, detail: error.message }, status: error.status } };
  }
}

/** The preview with the admin's posted column types as its selections: a refused save keeps them (also without JavaScript). */
function keepChoices(preview: Preview, mappings: string): Preview {
  let chosen: unknown;
  try {
    chosen = JSON.parse(mappings);
  } catch {
    return preview;
  }
  if (!Array.isArray(chosen)) return preview;
  const isField = (value: unknown): value is MappingField => (MAPPING_FIELDS as readonly unknown[]).includes(value);
  return { ...preview, columns: preview.columns.map((column, i) => (isField(chosen[i]) ? { ...column, suggested: chosen[i] } : column)) };
}

function safePath(id: string) {
  try {
    return uploadPath(id);
  } catch {
    return null;
  }
}

/** The column types of the mapping table (SPEC /importbase), for the page's select boxes. */
export const mappingChoices = () => MAPPING_FIELDS.map((value) => ({ value, label: MAPPING_LABELS[value] }));
/** The import page's note under the mapping: what a «Часовой пояс» column may hold. */
export const mappingHelp = () => `${ZONE_FIELD_HELP}. ${CONSENT_FIELD_HELP}.`;

/** The search page's query: hits, or the core's Russian message (blank term, too short, bad base). */
/** The search page's hits, each as its table row shows it (searchRowView). */
export async function searchForPage(context: AppLoadContext, actor: Actor, input: { term: string; database: string }) {
  try {
    const { phoneRegion } = context.deps.config;
    const hits = await searchContacts(context.deps.db, actor, input, { phoneRegion });
    return { hits: hits.map((hit) => searchRowView(hit, phoneRegion)), error: null };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { hits: [], error: error.message };
  }
}
export { isAppError } from "#server/core/errors";
export { NO_STATUS_ID, NO_STATUS_LABEL } from "#server/core/exports/exports";
