import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN, faultBackend, login, tempDataDir, waitFor, type ServerProcess } from "./server";

/**
 * Fault: the app killed with SIGKILL while an upload is being received. The next start removes the half file
 * at once (not a day later), and a start never removes what another live instance is still receiving. Both
 * backends; the servers get a private TMPDIR, so the uploads folder is this test's alone.
 */
const backend = faultBackend("upload_kill");
const tmp = tempDataDir("leaddesk-fault-uploads-");
const uploads = path.join(tmp, `leaddesk-uploads-${process.getuid?.() ?? "user"}`);
const env = { TMPDIR: tmp };
const otherDataDir = tempDataDir("leaddesk-fault-uploads-b-");
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(otherDataDir, { recursive: true, force: true });
});

const files = () => (fs.existsSync(uploads) ? fs.readdirSync(uploads) : []);

/** A multipart preview that sends its first bytes and waits; `finish` sends the rest and answers the status. */
function slowUpload(server: ServerProcess, token: string) {
  const boundary = "----leaddesk-slow-upload";
  const req = http.request(`${server.url}/api/v1/database/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
  });
  status.catch(() => {}); // a killed server resets it: awaited only where it must answer
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="база.xlsx"\r\n` + `Content-Type: application/octet-stream\r\n\r\n`,
  );
  // A zip's signature, then junk: it passes the first-bytes check (upload-kind.ts) and stays on disk while it comes.
  const body = Buffer.alloc(256 * 1024, 7);
  body.set([0x50, 0x4b, 0x03, 0x04]);
  req.write(body);
  return {
    status,
    finish() {
      req.end(`\r\n--${boundary}--\r\n`);
      return status;
    },
    abort() {
      req.destroy();
    },
  };
}

describe("uploads left by a killed server", { timeout: 240_000 }, () => {
  it("are removed at the next start; another live instance's upload in progress is left alone", async () => {
    const a = await backend.start({ env });
    const token = await login(a, ADMIN);

    // A's upload in progress while B starts on the same uploads folder: B must not take it.
    const live = slowUpload(a, token);
    const [liveFile] = await waitFor("A's upload to reach the disk", async () => {
      const found = files();
      return found.length === 1 && fs.statSync(path.join(uploads, found[0])).size > 0 ? found : null;
    });
    const b = await backend.start({ env, dataDir: otherDataDir });
    expect(files()).toEqual([liveFile]);
    // A still has it: the preview answers about the file (not a spreadsheet), and then it is gone.
    expect(await live.finish()).toBe(400);
    await waitFor("A to remove its finished upload", async () => files().length === 0, 10_000);
    await b.stop();

    // Killed half-way through an upload: the half file stays behind...
    const cut = slowUpload(a, token);
    const [leftFile] = await waitFor("the second upload to reach the disk", async () => {
      const found = files();
      return found.length === 1 && fs.statSync(path.join(uploads, found[0])).size > 0 ? found : null;
    });
    await a.kill9();
    cut.abort();
    expect(files()).toEqual([leftFile]);

    // ...until the next start, which removes it before serving.
    const again = await backend.start({ env });
    expect(files()).toEqual([]);
    await again.stop();
  });
});
