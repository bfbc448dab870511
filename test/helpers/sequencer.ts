import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, longest first (measured one run at a time; docs/conventions.md keeps the table). They
 * start first so that neither of the two workers is left alone with a long file at the end: the run on 2026-11-29
 * walked the screens (6 min) last, alone, and took 1711 s where its files' 2647 s over two workers need ~1330.
 * Both halves' slowest are here (the Postgres half's allocation, migration and load tests); the rest follow in
 * vitest's own order.
 */
const HEAVIEST = [
  "e2e/screens-walk",
  "e2e/telephony-carrier",
  "api/garbage",
  "e2e/telephony",
  "faults/migrate-to-postgres",
  "api/allocation",
  "e2e/softphone",
  "e2e/recording-faults",
  "e2e/xss",
  "load/load",
  "api/webhooks",
  "api/realtime",
  "api/spreadsheet-abuse",
  "e2e/layout",
  "e2e/managers",
  "e2e/autodial",
  "e2e/leadpanel",
  "core/database",
  "e2e/auth",
  "api/recordings",
  "e2e/scripts",
  "faults/pglite-lock",
  "e2e/dashboard",
].map((name) => `/test/${name}.test.ts`);

const rank = (file: TestSpecification) => {
  const at = HEAVIEST.findIndex((name) => file.moduleId.endsWith(name));
  return at === -1 ? HEAVIEST.length : at;
};

export default class HeaviestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
