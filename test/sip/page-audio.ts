import type { Page } from "playwright-core";
import { toneShare } from "../helpers/recordings";

/** What an element of the page played during one window: its samples, and whether it played at all. */
export interface ElementOutput {
  rate: number;
  /** What the element put out during the window: every track it plays, mixed as it mixes them; silence when it did not play. */
  samples: Float32Array;
  paused: boolean;
  readyState: number;
  /** How far the element's currentTime moved, and how much time passed meanwhile (seconds). */
  advanced: number;
  elapsed: number;
  /** Whether it played through the window: not paused, not muted, volume up, currentTime moving with the clock. */
  playing: boolean;
}

/**
 * What the page's audio element `selector` plays (a listening leg's `audio[data-relay-leg="client"]`, the softphone's
 * `audio[data-softphone-audio]`; issue 39, DESIGN §13): about 0.7 s of the element's output
 * (the analyser's largest window), which the test looks for tones in (toneShare) — what a person hears, not what
 * arrived on the wire.
 *
 * The element's output is its own stream while it plays, and silence otherwise. Chromium's `captureStream()` of an
 * element that plays a MediaStream hands back clones of that stream's tracks whether or not the element plays
 * (measured in Chromium 156: a paused element with readyState 0 "captured" its tone at full strength, and so did
 * its per-track analysers, which is how the old tests passed while nobody heard anything; a MediaElementSource
 * gives silence even while it plays). So the samples come from the element's captured tracks, mixed as the element
 * mixes them, and count only when the element played through the whole window: not paused, not muted, its volume
 * up, its currentTime advancing with the clock. Otherwise they are silence.
 */
export async function elementOutput(page: Page, selector: string): Promise<ElementOutput> {
  const result = await page.evaluate(async (selector) => {
    const audio = document.querySelector<HTMLAudioElement>(selector);
    if (!audio) throw new Error(`no audio element ${selector}`);
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 32_768;
    const captured = (audio as HTMLAudioElement & { captureStream(): MediaStream }).captureStream();
    // One source per track into one analyser: the mix the element plays (a MediaStreamAudioSourceNode reads one track).
    for (const track of captured.getAudioTracks()) context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
    const startedAt = performance.now();
    const startTime = audio.currentTime;
    // Let the analyser's window fill with what plays now.
    await new Promise((r) => setTimeout(r, (1_000 * 32_768) / context.sampleRate + 300));
    const samples = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(samples);
    const elapsed = (performance.now() - startedAt) / 1000;
    const advanced = audio.currentTime - startTime;
    const rate = context.sampleRate;
    // The captured tracks are left to the garbage collector: stopping them silenced the element's own stream.
    await context.close();
    return {
      rate,
      samples: [...samples],
      paused: audio.paused,
      readyState: audio.readyState,
      advanced,
      elapsed,
      muted: audio.muted,
      volume: audio.volume,
    };
  }, selector);
  // Moving with the clock: a jitter buffer may hold the clock back a little, a stalled element not at all.
  const playing = !result.paused && !result.muted && result.volume > 0 && result.readyState >= 2 && result.advanced >= 0.8 * result.elapsed;
  return {
    rate: result.rate,
    samples: playing ? Float32Array.from(result.samples) : new Float32Array(result.samples.length),
    paused: result.paused,
    readyState: result.readyState,
    advanced: result.advanced,
    elapsed: result.elapsed,
    playing,
  };
}

/**
 * From a click on `button` (in the page, by its clock) until the page's element `label` plays every tone of `hz`:
 * polled every 50 ms on a short window of the element's output (2,048 samples), the element playing throughout.
 */
export async function audibleAfterClick(page: Page, button: string, label: string, hz: number[], clicker: Page = page): Promise<number> {
  // tsx names the page function's inner arrows with its __name helper, which the page lacks.
  await page.evaluate("window.__name = window.__name || ((f) => f)");
  await page.evaluate(`window.toneShare = ${toneShare.toString()}`);
  const clickedAt = await clicker.evaluate((selector) => {
    (document.querySelector(selector) as HTMLButtonElement).click();
    return Date.now();
  }, button);
  const heardAt = await page.evaluate(
    async ({ label, hz, deadline }) => {
      // The tone's amplitude: its share of the window's power (toneShare, put in the page above) times that power.
      const share = (window as unknown as { toneShare: typeof toneShare }).toneShare;
      const level = (samples: Float32Array, rate: number, f: number) =>
        Math.sqrt(share(samples, rate, f) * (samples.reduce((sum, x) => sum + x * x, 0) / samples.length));
      const context = new AudioContext();
      await context.resume();
      try {
        while (Date.now() < deadline) {
          const audio = [...document.querySelectorAll("audio")].find((a) => a.dataset.relayLeg === label);
          if (audio && !audio.paused && audio.readyState >= 2) {
            const analyser = context.createAnalyser();
            analyser.fftSize = 2048;
            const captured = (audio as HTMLAudioElement & { captureStream(): MediaStream }).captureStream();
            for (const track of captured.getAudioTracks()) context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
            const from = audio.currentTime;
            const started = performance.now();
            await new Promise((r) => setTimeout(r, (1000 * 2048) / context.sampleRate + 10));
            const samples = new Float32Array(2048);
            analyser.getFloatTimeDomainData(samples);
            analyser.disconnect();
            const moved = audio.currentTime - from >= (0.8 * (performance.now() - started)) / 1000;
            if (moved && !audio.paused && hz.every((f) => level(samples, context.sampleRate, f) > 0.005)) return Date.now();
          } else await new Promise((r) => setTimeout(r, 50));
        }
        return null;
      } finally {
        await context.close();
      }
    },
    { label, hz, deadline: Date.now() + 20_000 },
  );
  if (heardAt === null) throw new Error(`${label}: never heard ${hz.join(" and ")} Hz within 20 s of the click`);
  return heardAt - clickedAt;
}

/**
 * A tone's level that a person hears (-46 dBFS) and one nobody does (-60 dBFS). Measured here: the client's tone
 * 0.17, a browser's microphone after Chromium's audio processing 0.018, a tone nobody says 0.0000.
 */
export const AUDIBLE = 0.005;
export const SILENT = 0.001;

/** The level of `hz` in what an element played: the RMS of that tone's part of its output (full scale 1). */
export function toneLevel(output: ElementOutput, hz: number): number {
  const meanSquare = output.samples.reduce((sum, x) => sum + x * x, 0) / output.samples.length;
  return Math.sqrt((toneShare(output.samples, output.rate, hz) || 0) * meanSquare);
}
