import { z } from "zod";

const flag = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((v) => v === "true" || v === "1");

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  DATA_DIR: z.string().default("./data"),
  ADMIN_LOGIN: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  ADMIN_ACCESS_KEY: z.string().optional(),
  /** Mark cookies Secure (set it when the app is served over HTTPS). */
  COOKIE_SECURE: flag,
  /**
   * How many proxies of ours stand in front of the app (0: none, the socket's address is the client's).
   * Login throttling then reads the client's address from X-Forwarded-For that many hops back; "true" means 1.
   */
  TRUST_PROXY: z.preprocess((v) => (v === "true" ? 1 : v === "false" || v === undefined || v === "" ? 0 : v), z.coerce.number().int().min(0).max(10)),
  SESSION_DAYS: z.coerce.number().int().min(1).default(30),
  /** An abandoned lead returns to the pool after this many minutes. */
  HOLD_MINUTES: z.coerce.number().int().min(1).default(30),
  /** How often each instance looks for callbacks that fell due, to tell their managers (ms). */
  CALLBACK_NOTIFY_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /** Region for reading phone numbers written without a country code. */
  PHONE_REGION: z.string().length(2).default("UA"),
  HELP_URL: z.string().default("https://t.me/"),
  SIP_WS_URL: z.string().default(""),
  SIP_DOMAIN: z.string().default(""),
  WEBPHONE_URL: z.string().default(""),
  /**
   * Shared with the telephony stack's Kamailio, which asks for managers' SIP digests with it (decision 024). It
   * guards every manager's HA1: 32 characters at least, as telephony/bin/kamailio asks too; empty: the door is shut.
   */
  SIP_AUTH_SECRET: z
    .string()
    .default("")
    .refine((v) => v === "" || v.length >= 32, { error: "нужно не меньше 32 символов (openssl rand -hex 32)" }),
  /**
   * rtpengine's ng control address ("host:port") for live listening (issue 28); empty: «Слушать» answers that
   * listening is not set up. On the telephony host: its --listen-ng on 127.0.0.1. From another host: the telephony
   * host's gate (RTPENGINE_NG_GATE there), with RTPENGINE_NG_SECRET (decision 066).
   */
  RTPENGINE_NG: z.string().default(""),
  /** Signs every ng request for the telephony host's gate; required for an RTPENGINE_NG that is not loopback. */
  RTPENGINE_NG_SECRET: z.string().default(""),
  /** Report applications are also POSTed here when set. */
  APPLICATION_FORWARD_URL: z.string().default(""),
  /** The app's address as integrations reach it (https://dialer.example.com): in front of the links webhook events carry. */
  PUBLIC_URL: z.string().default(""),
  /** Webhooks (issue 44): a receiver that has not answered in this many ms counts as failed. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** The first retry's delay (each next one doubles it, up to an hour). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(5_000),
  /** How long a delivery is retried, and a webhook may keep failing before it is switched off (a day). */
  WEBHOOK_RETRY_FOR_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 3600_000),
  /** Deliveries in flight at once, per app instance. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  /** How often the sender looks for due deliveries. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(500),
  TELEPHONY_API_URL: z.string().default(""),
  TELEPHONY_CALLER_ID: z.string().default(""),
  TELEPHONY_LOGIN: z.string().default(""),
  TELEPHONY_API_KEY: z.string().default(""),
  /** Milliseconds before a telephony provider call counts as failed. */
  TELEPHONY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** /users lists a user while his realtime socket was alive this many seconds ago. */
  PRESENCE_GRACE_SECONDS: z.coerce.number().int().min(1).default(30),
  /** The realtime hub pings every socket this often (a throttled background tab still answers). */
  REALTIME_PING_SECONDS: z.coerce.number().int().min(1).default(10),
  /** Addresses and networks that may read /metrics without an admin token (comma separated). */
  METRICS_ADDRESSES: z.string().default(""),
  /** Call recordings (issue 28): rtpengine's spool and the app's audio files; shared with the telephony host. */
  RECORDINGS_DIR: z.string().default(""),
  /** Below this much free space (MB) in RECORDINGS_DIR calls go on unrecorded. */
  RECORDINGS_MIN_FREE_MB: z.coerce.number().int().min(0).default(1024),
  /** Below this much free space (MB) the dashboard warns. */
  RECORDINGS_WARN_FREE_MB: z.coerce.number().int().min(0).default(5120),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Env = z.infer<typeof envSchema>;

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  admin: { login?: string; password?: string; accessKey?: string };
  cookieSecure: boolean;
  /** Proxies in front of the app whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: number;
  sessionDays: number;
  holdMinutes: number;
  callbackNotifyMs: number;
  phoneRegion: string;
  /** Settings the browser may see (root loader). Never secrets. */
  publicSettings: { helpUrl: string; sipWsUrl: string; sipDomain: string; webPhoneUrl: string };
  applicationForwardUrl: string;
  /** PUBLIC_URL: the app's address for links sent out (a recording's signed link); empty: the links are paths. */
  publicUrl: string;
  webhooks: { timeoutMs: number; retryBaseMs: number; retryForMs: number; concurrency: number; pollMs: number };
  telephony: { apiUrl: string; callerId: string; login: string; apiKey: string; timeoutMs: number };
  /** Kamailio presents it to read managers' SIP digests (server/core/telephony/sip-digest.ts); empty: refused. */
  sipAuthSecret: string;
  /** RTPENGINE_NG: the media relay's control address for live listening; empty: none. */
  rtpengineNg: string;
  /** RTPENGINE_NG_SECRET: requests are signed for the gate (decision 066); empty: plain ng on loopback. */
  rtpengineNgSecret: string;
  realtime: { presenceGraceSeconds: number; pingSeconds: number };
  recordings: { dir: string; minFreeMb: number; warnFreeMb: number };
  logLevel: Env["LOG_LEVEL"];
  /** METRICS_ADDRESSES: who may read /metrics without an admin's bearer token (server/http/metrics.ts). */
  metricsAddresses: string;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Неверная переменная окружения ${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  checkRtpengineNg(e.RTPENGINE_NG, e.RTPENGINE_NG_SECRET);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    admin: { login: e.ADMIN_LOGIN, password: e.ADMIN_PASSWORD, accessKey: e.ADMIN_ACCESS_KEY },
    cookieSecure: e.COOKIE_SECURE,
    trustProxy: e.TRUST_PROXY,
    sessionDays: e.SESSION_DAYS,
    holdMinutes: e.HOLD_MINUTES,
    callbackNotifyMs: e.CALLBACK_NOTIFY_MS,
    phoneRegion: e.PHONE_REGION.toUpperCase(),
    publicSettings: { helpUrl: e.HELP_URL, sipWsUrl: e.SIP_WS_URL, sipDomain: e.SIP_DOMAIN, webPhoneUrl: e.WEBPHONE_URL },
    applicationForwardUrl: e.APPLICATION_FORWARD_URL,
    publicUrl: e.PUBLIC_URL,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryForMs: e.WEBHOOK_RETRY_FOR_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      pollMs: e.WEBHOOK_POLL_MS,
    },
    telephony: {
      apiUrl: e.TELEPHONY_API_URL,
      callerId: e.TELEPHONY_CALLER_ID,
      login: e.TELEPHONY_LOGIN,
      apiKey: e.TELEPHONY_API_KEY,
      timeoutMs: e.TELEPHONY_TIMEOUT_MS,
    },
    sipAuthSecret: e.SIP_AUTH_SECRET,
    rtpengineNg: e.RTPENGINE_NG,
    rtpengineNgSecret: e.RTPENGINE_NG_SECRET,
    realtime: { presenceGraceSeconds: e.PRESENCE_GRACE_SECONDS, pingSeconds: e.REALTIME_PING_SECONDS },
    recordings: {
      dir: e.RECORDINGS_DIR || `${e.DATA_DIR.replace(/\/+$/, "")}/recordings`,
      minFreeMb: e.RECORDINGS_MIN_FREE_MB,
      warnFreeMb: e.RECORDINGS_WARN_FREE_MB,
    },
    logLevel: e.LOG_LEVEL,
    metricsAddresses: e.METRICS_ADDRESSES,
  };
}

/**
 * rtpengine's ng protocol has no authentication (decision 066): plain ng only to this host's loopback, anything
 * else through the telephony host's gate with the shared secret. Refused at start, not at the first «Слушать».
 */
function checkRtpengineNg(address: string, secret: string) {
  if (!address) return;
  const host = address.trim().match(/^\[?([^\]]+?)\]?:(\d+)$/)?.[1];
  if (!host) throw new Error(`Неверная переменная окружения RTPENGINE_NG: ожидается адрес вида 127.0.0.1:22222, а не «${address}»`);
  if (secret && secret.length < 32) {
    throw new Error("Неверная переменная окружения RTPENGINE_NG_SECRET: нужно не меньше 32 символов (openssl rand -hex 32)");
  }
  const loopback = /^127\./.test(host) || host === "::1" || host === "localhost";
  if (!loopback && !secret) {
    throw new Error(
      `Неверная переменная окружения RTPENGINE_NG: управление rtpengine без пароля доступно только на этой машине (127.0.0.1); ` +
        `к ${host} нужен шлюз RTPENGINE_NG_GATE на сервере телефонии и общий RTPENGINE_NG_SECRET (docs/telephony.md, 7a)`,
    );
  }
}
