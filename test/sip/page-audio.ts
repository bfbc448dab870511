import type { Page } from "playwright-core";

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
 * What the page's <audio data-relay-leg=label> plays (issue 39, DESIGN §13): about 0.7 s of the element's output
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
export async function elementOutput(page: Page, label: string): Promise<ElementOutput> {
  const result = await page.evaluate(async (label) => {
    const audio = [...document.querySelectorAll("audio")].find((a) => a.dataset.relayLeg === label);
    if (!audio) throw new Error(`no audio element plays ${label}`);
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
  }, label);
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
