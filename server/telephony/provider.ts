import crypto from "node:crypto";
import { and, isNotNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { users } from "../../db/schema";
import { conflict } from "../core/errors";
import { fetchError, proxyApiError, type TelephonyProvider } from "../core/telephony/accounts";
import type { AppConfig } from "../config";

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
const sipPassword = (length = 12) => Array.from({ length }, () => SIP_PASSWORD_ALPHABET[crypto.randomInt(SIP_PASSWORD_ALPHABET.length)]).join("");

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
