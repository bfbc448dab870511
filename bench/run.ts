import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * `npm run bench`: every bench/*.ts script (each prints its own tables, with its baseline measured in the same
 * run and its target beside the figures), collected into docs/benchmarks.md with the machine and the date.
 *
 * `npm run bench -- statistics leads` runs only those scripts and replaces only their sections of
 * docs/benchmarks.md, so one slow benchmark can be measured again without re-running the others.
 */
const OUTPUT = "docs/benchmarks.md";
const NOT_BENCHES = new Set(["run.ts", "lib.ts", "app.ts", "lead-driver.ts", "lead-world.ts", "import-file.ts", "small-install.ts", "calls-in.ts"]);

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "CPU";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The sections of an existing docs/benchmarks.md, by script name. */
function readSections(): Map<string, string> {
  const sections = new Map<string, string>();
  if (!fs.existsSync(OUTPUT)) return sections;
  const text = fs.readFileSync(OUTPUT, "utf8");
  for (const match of text.matchAll(/<!-- bench:(\S+) -->\n([\s\S]*?)<!-- \/bench:\1 -->/g)) {
    sections.set(match[1], match[2]);
  }
  return sections;
}

function runBench(name: string): string {
  const started = Date.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", `${name}.ts`)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = (result.stdout ?? "").trim();
  process.stdout.write(`${output}\n`);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const status = result.status === 0 ? "" : `\n**${name}.ts exited with ${result.status ?? result.signal}.**\n`;
  return [
    `## ${name}`,
    "",
    `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${machine()} (${minutes} min).`,
    "",
    "```",
    output,
    "```",
    status,
  ].join("\n");
}

function main() {
  const all = fs
    .readdirSync("bench")
    .filter((f) => f.endsWith(".ts") && !NOT_BENCHES.has(f))
    .map((f) => f.slice(0, -3))
    .sort((a, b) => (a === "startup" ? -1 : b === "startup" ? 1 : a.localeCompare(b)));
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !all.includes(name));
  if (unknown.length) {
    console.error(`Unknown benchmark: ${unknown.join(", ")}. Known: ${all.join(", ")}`);
    process.exit(2);
  }

  const sections = readSections();
  for (const name of wanted.length ? wanted : all) {
    console.log(`\n== bench/${name}.ts`);
    sections.set(name, `${runBench(name)}\n`);
  }

  const body = all.filter((name) => sections.has(name)).map((name) => `<!-- bench:${name} -->\n${sections.get(name)}<!-- /bench:${name} -->\n`);
  const header = [
    "# Benchmarks",
    "",
    "Made by `npm run bench` (all of them) or `npm run bench -- <name> ...` (some). Every table is printed by its",
    "script in `bench/`: medians and percentiles, with the baseline each script measures in the same run (a bare",
    "library call, the raw SQL, a trivial route) and the issue's target beside the figures. The machines are",
    "shared and noisy: compare ratios rather than absolute times.",
    "",
  ].join("\n");
  fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
  fs.writeFileSync(OUTPUT, `${header}\n${body.join("\n")}`);
  console.log(`\nwritten: ${OUTPUT}`);
}

main();
