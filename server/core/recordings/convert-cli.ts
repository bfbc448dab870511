import { encodeCall, fixedFiles } from "./encode";

/**
 * The conversion of one recorded call after its end, in a process of its own (started by the recordings job), so
 * neither the pcap parse nor the encoder runs on the app's event loop and a crash or kill ends only this call's try.
 * Argument: JSON { pcaps, metadata, output }. Prints JSON { ms } (the audio's length) on success; exits 1 with the
 * reason on stderr otherwise. A long call is mostly encoded while it runs instead (follow-cli.ts).
 */
interface Job {
  pcaps: string[];
  metadata: string[];
  output: string;
}

try {
  const job = JSON.parse(process.argv[2]) as Job;
  const { ms } = await encodeCall({ output: job.output, files: fixedFiles(job.pcaps, job.metadata) });
  process.stdout.write(JSON.stringify({ ms }));
} catch (error) {
  process.stderr.write(String((error as Error)?.message ?? error), () => process.exit(1));
}
