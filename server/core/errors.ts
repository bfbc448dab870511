/**
 * The one error type of the core: an HTTP status, a machine code and a Russian message a person can act on.
 * Fastify turns it into `{ error, message }`; Remix turns it into a field error or a toast.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (message: string, code = "bad_request") => new AppError(400, code, message);
/**
 * A 400 about one field of a form with rows (issue 41: a retry rule's final status), named as the form names it
 * (`retryRules.7.finalStatus`): a page shows the message there, and the API answers it as any 400.
 */
export const badRequestAt = (field: string, message: string, code: string) => Object.assign(badRequest(message, code), { field });
/** The field a refusal names (badRequestAt), if any. */
export const fieldOfError = (error: AppError): string | null => {
  const field = (error as AppError & { field?: unknown }).field;
  return typeof field === "string" ? field : null;
};
export const unauthorized = (message = "Требуется вход в систему", code = "unauthorized") => new AppError(401, code, message);
export const forbidden = (message = "Недостаточно прав для этого действия", code = "forbidden") => new AppError(403, code, message);
export const notFound = (message = "Не найдено", code = "not_found") => new AppError(404, code, message);
export const conflict = (message: string, code = "conflict") => new AppError(409, code, message);
export const tooManyRequests = (message: string, code = "too_many_requests") => new AppError(429, code, message);

/** One class at run time: the Remix build imports core rather than bundling a copy (package.json "imports", #server/). */
export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
