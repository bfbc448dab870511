import type { Page } from "playwright-core";

/**
 * What a page plays from one of its relay legs (issue 28): the <audio data-relay-leg=label> the supervision code
 * plays, each received track through its own WebAudio AnalyserNode, about 0.7 s of samples per track (the
 * analyser's largest window). The test then looks for tones in them (toneShare) — heard, not merely received.
 */
export async function playedTracks(page: Page, label: string): Promise<{ rate: number; tracks: Float32Array[] }> {
  const { rate, tracks } = await page.evaluate(async (label) => {
    const audio = [...document.querySelectorAll("audio")].find((a) => a.dataset.relayLeg === label);
    const stream = audio?.srcObject as MediaStream | null | undefined;
    if (!stream) throw new Error(`no audio element plays ${label}`);
    const context = new AudioContext();
    await context.resume();
    const analysers = stream.getAudioTracks().map((track) => {
      const analyser = context.createAnalyser();
      analyser.fftSize = 32_768;
      context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
      return analyser;
    });
    // Let the analysers' windows fill with what plays now.
    await new Promise((r) => setTimeout(r, (1_000 * 32_768) / context.sampleRate + 300));
    const tracks = analysers.map((analyser) => {
      const samples = new Float32Array(analyser.fftSize);
      analyser.getFloatTimeDomainData(samples);
      return [...samples];
    });
    const rate = context.sampleRate;
    await context.close();
    return { rate, tracks };
  }, label);
  return { rate, tracks: tracks.map((samples) => Float32Array.from(samples)) };
}
