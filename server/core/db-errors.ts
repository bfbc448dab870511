/** True when an error means the database cannot be reached (connection refused, reset, timed out, shutting down). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; cause?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = e.code ?? "";
  if (
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "CONNECT_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED"].includes(
      code,
    ) ||
    code === "57P01" || // admin_shutdown
    code === "57P02" ||
    code === "57P03" // cannot_connect_now
  )
    return true;
  return e.cause ? isDatabaseUnavailable(e.cause) : false;
}
