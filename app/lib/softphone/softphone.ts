/**
 * The softphone itself: sip.js 0.21 (UserAgent, Registerer, Inviter, Invitation) over a WebSocket to the PBX.
 * Browser only: the provider imports this file after hydration, never during server rendering. The rules (line
 * flag, error messages) live in `machine.ts`; this file turns sip.js callbacks into its events.
 */
import { Invitation, Inviter, Registerer, RegistererState, SessionState, UserAgent, type LogLevel, type Session, type Web } from "sip.js";
import type { SoftphoneConfig } from "./config";
import { promptOfferFactory } from "./ice";
import { setActiveSoftphone, type CallTerminator } from "./index";
import { acceptsIncoming, initialPhoneState, requestCall, type Notice, type PhoneEvent, type PhoneState } from "./machine";
import { transition } from "./transition";
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

/** A REGISTER challenged twice is tried once more after this long. */
const CHALLENGE_RETRY_MS = 1_000;
/** Re-registration after the socket drops. */
const RECONNECT_DELAY_MS = 5_000;
/** How long an ended call stays on screen before the panel says ready again. */
const ENDED_VISIBLE_MS = 4_000;
const REGISTER_EXPIRES_S = 300;
/** The longest an offer waits for ICE candidates (a STUN or TURN server that never answers). */
const ICE_GATHERING_TIMEOUT_MS = 1_000;
/** Hold offers no media at all (RFC 3264 inactive), so the other side really hears nothing. */
const INACTIVE = (description: RTCSessionDescriptionInit) =>
  Promise.resolve({ ...description, sdp: description.sdp?.replace(/a=(sendrecv|sendonly|recvonly)\r\n/g, "a=inactive\r\n") });

export interface SoftphoneOptions {
  /** Toasts (Идет вызов, Ошибка вызова, Ошибка набора). */
  onNotice(notice: Notice): void;
  /** ICE servers for the media; none by default (the PBX answers ICE itself; loopback tests need none). */
  iceServers?: RTCIceServer[];
}

export class Softphone implements CallTerminator {
  private state: PhoneState = initialPhoneState;
  private readonly listeners = new Set<(state: PhoneState) => void>();
  private readonly ua: UserAgent;
  private readonly registerer: Registerer;
  /** Every call this phone knows of; normally at most one (the line flag refuses a second). */
  private readonly sessions = new Set<Session>();
  /** Sessions this side chose to end: their termination is a hang-up, not a failure. */
  private readonly endedHere = new WeakSet<Session>();
  private current: Session | null = null;
  private readonly audio: HTMLAudioElement;
  private stopped = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** One fresh REGISTER after a double challenge, until the next success. */
  private challengeRetried = false;
  /** The chosen microphone (a MediaDeviceInfo.deviceId); null: the browser's default. */
  private microphone: string | null = null;
  private clearTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: SoftphoneConfig,
    private readonly options: SoftphoneOptions,
  ) {
    const uri = UserAgent.makeURI(`sip:${config.sipLogin}@${config.domain}`);
    if (!uri) throw new Error(`Неверный SIP-адрес: ${config.sipLogin}@${config.domain}`);
    this.ua = new UserAgent({
      uri,
      authorizationUsername: config.sipLogin,
      authorizationPassword: config.sipPassword,
      transportOptions: { server: config.wsUrl, traceSip: false },
      // The host of its Via and Contact, which reach the carrier in every INVITE (issue 42: it must fit one UDP
      // datagram): sip.js's default is 12 random characters and ".invalid", here one. Nothing routes by it.
      viaHost: "w.invalid",
      // The INVITE leaves once the candidates the PBX can use are in, not after all of the browser's (ice.ts).
      sessionDescriptionHandlerFactory: promptOfferFactory(options.iceServers ?? [], ICE_GATHERING_TIMEOUT_MS),
      logBuiltinEnabled: false,
      logLevel: "warn",
      logConnector: (level: LogLevel, category: string, _label: string | undefined, content: string) => {
        // Protocol noise from the library is not an application error: keep it out of console.error.
        if (level === "error" || level === "warn") console.warn(`[sip.js] ${category}: ${content}`);
      },
      delegate: {
        onInvite: (invitation) => this.onInvite(invitation),
        onDisconnect: (error) => {
          if (this.stopped) return;
          if (this.sessions.size > 0) this.dropCallsOnLostConnection();
          this.dispatch({ type: "registrationFailed" });
          if (error) this.scheduleReconnect();
        },
      },
    });
    this.registerer = new Registerer(this.ua, { expires: REGISTER_EXPIRES_S });
    this.registerer.stateChange.addListener((registration) => {
      if (this.stopped) return;
      if (registration === RegistererState.Registered) this.dispatch({ type: "registered" });
      else if (registration === RegistererState.Unregistered) this.dispatch({ type: "registrationFailed" });
    });
    this.audio = document.createElement("audio");
    this.audio.autoplay = true;
    this.audio.dataset.softphoneAudio = config.sipLogin;
    this.audio.hidden = true;
  }

  getState(): PhoneState {
    return this.state;
  }

  subscribe(listener: (state: PhoneState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects and registers; a failure shows in the state and is retried. */
  async start(): Promise<void> {
    document.body.appendChild(this.audio);
    window.addEventListener("pagehide", this.onPageHide);
    setActiveSoftphone(this);
    this.dispatch({ type: "connecting" });
    try {
      await this.ua.start();
      await this.register();
    } catch {
      if (this.stopped) return;
      this.dispatch({ type: "registrationFailed" });
      this.scheduleReconnect();
    }
  }

  /** Ends every call, unregisters and closes the socket (logout, or the page going away). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.hangUpAll();
    this.stopped = true;
    window.removeEventListener("pagehide", this.onPageHide);
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.clearTimer);
    setActiveSoftphone(null);
    this.listeners.clear();
    this.audio.srcObject = null;
    this.audio.remove();
    try {
      if (this.registerer.state === RegistererState.Registered) await this.registerer.unregister();
    } catch {
      // The server forgets the registration when it expires.
    }
    await this.ua.stop().catch(() => {});
  }

  /**
   * A reload or a closed tab mid-call: send the BYE / CANCEL and the de-registration while the socket is still
   * open (they go out synchronously), or the other side keeps a dead call until its own timeout.
   */
  private readonly onPageHide = () => {
    void this.stop();
  };

  /** Позвонить: dials `rawNumber` (a lead's phone, with its contact, or an extension) unless the line is busy. */
  call(rawNumber: string, contactId: number | null = null): void {
    const request = requestCall(this.state, rawNumber, contactId);
    if (!request.ok) {
      this.setState(request.state);
      this.options.onNotice(request.notice);
      return;
    }
    const target = UserAgent.makeURI(`sip:${request.target}@${this.config.domain}`);
    if (!target) {
      this.setState(request.state);
      this.dispatch({ type: "dialFailed" });
      return;
    }
    const inviter = new Inviter(this.ua, target, { sessionDescriptionHandlerOptions: this.audioOnly() });
    // The line is taken with the call's Call-ID, which the call log's start report carries.
    this.setState({ ...request.state, sipCallId: inviter.request.callId });
    this.track(inviter);
    inviter.stateChange.addListener((state) => {
      if (state === SessionState.Established) {
        this.playRemoteAudio(inviter);
        this.dispatchFor(inviter, { type: "established", at: Date.now() });
      }
    });
    // The microphone is asked for here, on the first call (the browser remembers the answer).
    inviter
      .invite({
        requestDelegate: {
          onReject: (response) =>
            this.dispatchFor(inviter, {
              type: "rejected",
              statusCode: response.message.statusCode ?? 0,
              reasonPhrase: response.message.reasonPhrase,
            }),
        },
      })
      .catch(() => {
        this.endedHere.add(inviter);
        this.dispatchFor(inviter, { type: "dialFailed" });
      });
  }

  /** Ответить on a ringing incoming call. */
  answer(): void {
    const session = this.current;
    if (!(session instanceof Invitation) || session.state !== SessionState.Initial) return;
    this.dispatch({ type: "answering" });
    session.accept({ sessionDescriptionHandlerOptions: this.audioOnly() }).catch(() => {
      this.dispatchFor(session, { type: "failed" });
    });
  }

  /** Повторить: dials the last number again, for the same client (the call log ties it to him). */
  redial(): void {
    if (this.state.lastDialled) this.call(this.state.lastDialled, this.state.lastContactId);
  }

  /** Микрофон: the other side hears silence while muted; the call itself is untouched. */
  setMuted(on: boolean): void {
    const handler = this.establishedHandler();
    if (!handler) return;
    handler.enableSenderTracks(!on && !this.state.held);
    this.dispatch({ type: "muted", on });
  }

  /**
   * Удержание: a re-INVITE offering no media (inactive), then nothing is sent or played until resumed with a
   * re-INVITE back to sendrecv. The state changes once the other side accepted.
   */
  setHeld(on: boolean): void {
    const session = this.current;
    const handler = this.establishedHandler();
    if (!session || !handler || on === this.state.held) return;
    handler.enableSenderTracks(!on && !this.state.muted);
    session
      .invite({
        sessionDescriptionHandlerOptions: { ...this.audioOnly(), hold: on } as Web.SessionDescriptionHandlerOptions,
        sessionDescriptionHandlerModifiers: on ? [INACTIVE] : [],
        requestDelegate: {
          onAccept: () => this.dispatchFor(session, { type: "held", on }),
          onReject: () => {
            handler.enableSenderTracks(!this.state.held && !this.state.muted);
            this.options.onNotice({ kind: "error", text: on ? "Не удалось поставить на удержание" : "Не удалось снять с удержания" });
          },
        },
      })
      .catch(() => {
        this.options.onNotice({ kind: "error", text: on ? "Не удалось поставить на удержание" : "Не удалось снять с удержания" });
      });
  }

  /** A keypad press: an RFC 4733 telephone event in the media (voice menus of banks and shops). */
  sendDtmf(key: string): boolean {
    const handler = this.establishedHandler();
    if (!handler || !/^[0-9*#A-D]$/.test(key)) return false;
    return handler.sendDtmf(key, { duration: 160, interToneGap: 70 });
  }

  /** The microphone the next call uses (remembered by the provider). */
  setMicrophone(deviceId: string | null): void {
    this.microphone = deviceId || null;
  }

  private audioOnly() {
    const audio: MediaTrackConstraints | boolean = this.microphone ? { deviceId: { exact: this.microphone } } : true;
    return { constraints: { audio, video: false } };
  }

  private establishedHandler(): Web.SessionDescriptionHandler | null {
    const session = this.current;
    if (!session || session.state !== SessionState.Established || this.state.call !== "inCall") return null;
    return (session.sessionDescriptionHandler as Web.SessionDescriptionHandler | undefined) ?? null;
  }

  /** Завершить / Отклонить: ends the current call whatever its stage. */
  hangUp(): Promise<void> {
    return this.current ? this.end(this.current) : Promise.resolve();
  }

  /** Forced logout: every call of this phone is hung up, cancelled or rejected. */
  async hangUpAll(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => this.end(session)));
  }

  private async end(session: Session): Promise<void> {
    this.endedHere.add(session);
    try {
      switch (session.state) {
        case SessionState.Initial:
        case SessionState.Establishing:
          if (session instanceof Inviter) await session.cancel();
          else if (session instanceof Invitation) await session.reject({ statusCode: 480 });
          break;
        case SessionState.Established:
          await session.bye();
          break;
        default:
          break;
      }
    } catch {
      // Already ending (a race with the other side's BYE or CANCEL): nothing left to do.
    }
  }

  /**
   * The PBX went away mid-call: nothing can be signalled any more (hold, hang-up), so the calls end here with a
   * message; the PBX's side ends them by its own timeouts.
   */
  private dropCallsOnLostConnection() {
    this.dispatch({ type: "connectionLost" });
    for (const session of this.sessions) {
      this.endedHere.add(session);
      session.dispose().catch(() => {});
    }
  }

  private onInvite(invitation: Invitation) {
    if (this.stopped || !acceptsIncoming(this.state)) {
      // SPEC §4: one call at a time; a second caller hears busy.
      invitation.reject({ statusCode: 486 }).catch(() => {});
      return;
    }
    this.track(invitation);
    invitation.delegate = {
      // sip.js calls the callee Established when it sends 200 OK; the call is up only once the ACK is back.
      onAck: () => {
        this.playRemoteAudio(invitation);
        this.dispatchFor(invitation, { type: "established", at: Date.now() });
      },
    };
    this.dispatch({ type: "incoming", peer: invitation.remoteIdentity.uri.user ?? "", sipCallId: invitation.request.callId });
  }

  private track(session: Session) {
    this.sessions.add(session);
    this.current = session;
    clearTimeout(this.clearTimer);
    session.stateChange.addListener((state) => {
      if (state !== SessionState.Terminated) return;
      this.sessions.delete(session);
      // sip.js terminates a session before its invite() promise rejects: let Ошибка набора land first.
      setTimeout(() => this.onTerminated(session), 0);
    });
  }

  private onTerminated(session: Session) {
    if (this.current !== session) return;
    const wasEstablished = this.state.call === "inCall";
    this.current = null;
    this.audio.srcObject = null;
    // A call that never came up and that nobody here ended has failed (timeout, lost connection).
    const failed = !wasEstablished && !this.endedHere.has(session) && session instanceof Inviter;
    this.dispatch(failed ? { type: "failed" } : { type: "terminated" });
    this.clearTimer = setTimeout(() => this.dispatch({ type: "cleared" }), ENDED_VISIBLE_MS);
  }

  private playRemoteAudio(session: Session) {
    const handler = session.sessionDescriptionHandler as Web.SessionDescriptionHandler | undefined;
    if (!handler) return;
    this.audio.srcObject = handler.remoteMediaStream;
    this.audio.play().catch(() => {
      // Autoplay refused before any user gesture: the next click on the page starts it.
      document.addEventListener("click", () => this.audio.play().catch(() => {}), { once: true });
    });
  }

  private async register() {
    await this.registerer.register({
      requestDelegate: {
        // After a reconnect the registerer may already count as Registered (no state change): say so here.
        onAccept: () => {
          this.challengeRetried = false;
          this.dispatch({ type: "registered" });
        },
        onReject: (response) => {
          const statusCode = response.message.statusCode ?? 0;
          // A second challenge (401/407) means the server restarted between the challenge and our answer: one
          // fresh attempt. A refusal (403: wrong SIP password) is never retried, the same credentials would fail.
          if ((statusCode === 401 || statusCode === 407) && !this.challengeRetried) {
            this.challengeRetried = true;
            setTimeout(() => {
              if (!this.stopped) this.register().catch(() => {});
            }, CHALLENGE_RETRY_MS);
            return;
          }
          this.dispatch({ type: "registrationFailed", statusCode });
        },
      },
    });
  }

  private scheduleReconnect() {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(async () => {
      if (this.stopped) return;
      try {
        this.dispatch({ type: "connecting" });
        await this.ua.reconnect();
        await this.register();
      } catch {
        if (this.stopped) return;
        this.dispatch({ type: "registrationFailed" });
        this.scheduleReconnect();
      }
    }, RECONNECT_DELAY_MS);
  }

  /** Events about a particular call count only while it is the current one. */
  private dispatchFor(session: Session, event: PhoneEvent) {
    if (this.current === session) this.dispatch(event);
  }

  private dispatch(event: PhoneEvent) {
    const { state, notice } = transition(this.state, event);
    this.setState(state);
    if (notice) this.options.onNotice(notice);
  }

  private setState(state: PhoneState) {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}
