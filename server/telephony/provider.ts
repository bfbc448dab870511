import crypto from "node:crypto";
import { and, isNotNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { users } from "../../db/schema";
import { AppError, conflict } from "../core/errors";
import type { AppConfig } from "../config";

/** A SIP account on the telephony side: the extension is the manager's sipLogin. */
export interface SipAccount {
  extension: string;
  password: string;
}

/**
 * Where SIP accounts come from. `proxy`: the telephony provider's HTTP API (SPEC §7 Other calls, commands
 * createNew and deletePeer). `builtin`: no provider configured, so extensions are handed out here, under the
 * chosen prefix, from the numbers no manager uses yet (the embedded default works without any telephony).
 */
export interface TelephonyProvider {
  readonly kind: "proxy" | "builtin";
  createAccount(input: { prefix: number; name: string }): Promise<SipAccount>;
  deleteAccount(extension: string): Promise<void>;
}

/** SPEC §8 toasts for a failed provider call: the provider answered with an error, or could not be reached. */
export const proxyApiError = () => new AppError(502, "proxy_api_error", "Proxy API error");
export const fetchError = () => new AppError(502, "fetch_error", "Fetch error");

export const SIP_PREFIXES = Array.from({ length: 11 }, (_, i) => (i + 1) * 1000);
export const DEFAULT_SIP_PREFIX = 9000;
/** Extensions under a prefix: prefix + 1 … prefix + 999. */
const EXTENSIONS_PER_PREFIX = 999;

export function createTelephony(db: Db, config: AppConfig["telephony"], fetchImpl: typeof fetch = fetch): TelephonyProvider {
  return config.apiUrl ? proxyProvider(config, fetchImpl) : builtinProvider(db);
}

type ProxyCommand = "createNew" | "deletePeer";

function proxyProvider(config: AppConfig["telephony"], fetchImpl: typeof fetch): TelephonyProvider {
  async function call(command: ProxyCommand, extra: Record<string, unknown>): Promise<Record<string, unknown>> {
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(config.apiUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({
          command,
          callerId: config.callerId,
          login: config.login,
          apiKey: config.apiKey,
          ...extra,
        }),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      text = await response.text();
    } catch {
      // Refused, reset, DNS, or no answer within the timeout.
      throw fetchError();
    }
    if (!response.ok) throw proxyApiError();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw proxyApiError();
    }
    if (!body || typeof body !== "object") throw proxyApiError();
    const answer = body as Record<string, unknown>;
    const status = typeof answer.status === "string" ? answer.status.toLowerCase() : "";
    if (answer.error || status === "error" || answer.success === false) throw proxyApiError();
    return answer;
  }

  return {
    kind: "proxy",
    async createAccount({ prefix, name }) {
      const answer = await call("createNew", { prefix, name });
      const data = answer.data as Record<string, unknown> | undefined;
      const extension = data?.extension;
      const password = data?.password;
      if ((typeof extension !== "string" && typeof extension !== "number") || typeof password !== "string" || !password) {
        throw proxyApiError();
      }
      return { extension: String(extension), password };
    },
    async deleteAccount(extension) {
      await call("deletePeer", { extension });
    },
  };
}

const SIP_PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
const sipPassword = (length = 12) =>
  Array.from({ length }, () => SIP_PASSWORD_ALPHABET[crypto.randomInt(SIP_PASSWORD_ALPHABET.length)]).join("");

function builtinProvider(db: Db): TelephonyProvider {
  return {
    kind: "builtin",
    async createAccount({ prefix }) {
      const low = prefix + 1;
      const high = prefix + EXTENSIONS_PER_PREFIX;
      const rows = await db
        .select({ sipLogin: users.sipLogin })
        .from(users)
        .where(and(isNotNull(users.sipLogin), ne(users.sipLogin, ""), sql`${users.sipLogin} ~ '^[0-9]{1,9}$'`));
      const taken = new Set(rows.map((r) => Number(r.sipLogin)).filter((n) => n >= low && n <= high));
      for (let n = low; n <= high; n++) {
        if (!taken.has(n)) return { extension: String(n), password: sipPassword() };
      }
      throw conflict(`Нет свободных SIP номеров с префиксом ${prefix}`, "sip_exhausted");
    },
    async deleteAccount() {
      // The extension is free again as soon as no manager carries it.
    },
  };
}
