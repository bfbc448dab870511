import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { currentOwner, formatOwner, ownerAlive, parseOwner } from "../../../common/process-owner";
import { badRequest } from "../errors";
import { MESSAGES, SHEET_LIMITS } from "../spreadsheets";
import { HEAD_BYTES, TOO_LARGE, uploadRefusal } from "../../../common/upload-kind";

/**
 * Uploaded spreadsheets wait in a private temporary folder between the preview and the import (the page's two
 * steps work without JavaScript, and a file input cannot be filled again). Ids are random.
 *
 * A file is written under a name that carries its process, `<id>.<pid>-<start>.part` (common/process-owner.ts),
 * and keeps it while only that process needs it (an API upload lives for its request). So a start after a
 * `kill -9` removes what the dead process left, and never what another live instance is writing. A page upload
 * is renamed to its bare id once stored (`keepUpload`): it waits for the import step, on any instance, and
 * only its age (a day) sweeps it.
 */
// One folder per system user: a folder of the same name another user made first (mode 0700) refused every upload.
export const UPLOADS_DIR = path.join(os.tmpdir(), `leaddesk-uploads-${process.getuid?.() ?? "user"}`);
const ID = /^[a-f0-9]{32}$/;
const OWNED = /^[a-f0-9]{32}\.(\d+(?:-\d+)?)\.part$/;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;
let ownTag: string | null = null;

export const uploadGone = () => badRequest("Загруженный файл не найден: выберите файл ещё раз", "upload_gone");
export const fileRequired = () => badRequest("Выберите файл для импорта", "file_required");

/** A new upload's id and the path to write it to (named for this process until `keepUpload`). */
export function newUpload(): { id: string; path: string } {
  fs.mkdirSync(UPLOADS_DIR, { recursive: true, mode: 0o700 });
  const id = crypto.randomBytes(16).toString("hex");
  ownTag ??= formatOwner(currentOwner());
  return { id, path: path.join(UPLOADS_DIR, `${id}.${ownTag}.part`) };
}

/** A stored page upload waits for the import step: it drops its process from its name and answers its id. */
export function keepUpload(upload: { id: string; path: string }): string {
  fs.renameSync(upload.path, path.join(UPLOADS_DIR, upload.id));
  return upload.id;
}

/** The path of an earlier upload, or a 400 if it is unknown or gone. */
export function uploadPath(id: unknown): string {
  if (typeof id !== "string" || !ID.test(id)) throw uploadGone();
  const file = path.join(UPLOADS_DIR, id);
  if (!fs.existsSync(file)) throw uploadGone();
  return file;
}

/**
 * Streams an upload to its temporary file, checking it as its bytes arrive (upload-kind.ts): a file that is too
 * large or no spreadsheet by its name and first bytes is refused at the chunk that tells, not after the whole
 * body (issue 31), and leaves no file. Answers null for an empty file. The file keeps its process's name until
 * `keepUpload`.
 */
export async function storeUpload(data: AsyncIterable<Uint8Array>, name: string): Promise<{ id: string; path: string } | null> {
  const upload = newUpload();
  const out = fs.createWriteStream(upload.path, { mode: 0o600 });
  let size = 0;
  let head = new Uint8Array(0);
  const refuse = () => {
    const refusal = uploadRefusal(head, name, size);
    if (refusal) throw badRequest(refusal, refusal === TOO_LARGE ? "file_too_large" : "not_spreadsheet");
  };
  try {
    for await (const chunk of data) {
      if (size < HEAD_BYTES) {
        head = Uint8Array.from([...head, ...chunk.subarray(0, HEAD_BYTES - size)]);
        if (head.length >= HEAD_BYTES) refuse();
      }
      size += chunk.length;
      if (size > SHEET_LIMITS.maxFileBytes) refuse();
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    }
    // A file shorter than a signature is judged by what there is.
    if (size > 0 && size < HEAD_BYTES) refuse();
    await new Promise<void>((resolve, reject) => {
      out.once("error", reject);
      out.end(() => resolve());
    });
  } catch (error) {
    // A refused file, or a form cut off half-way: no half file left behind.
    out.destroy();
    removeUpload(upload.path);
    throw error;
  }
  if (size === 0) {
    removeUpload(upload.path);
    return null;
  }
  return upload;
}

/** What a form may add around its file: the other fields and the multipart boundaries. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
/** A body that declares itself larger than any upload may be is refused before a byte of it is read. */
export function refuseOversizedBody(contentLength: string | null | undefined) {
  if (Number(contentLength) > SHEET_LIMITS.maxFileBytes + FORM_OVERHEAD_BYTES) throw badRequest(MESSAGES.tooLarge, "file_too_large");
}

/** An API upload (a multipart file stream): stored as it arrives, a 400 when it is empty or refused. */
export async function saveUpload(stream: Readable & { truncated?: boolean }, name: string): Promise<{ id: string; path: string }> {
  const upload = await storeUpload(stream, name);
  if (!upload) throw fileRequired();
  if (stream.truncated) {
    removeUpload(upload.path);
    throw badRequest(MESSAGES.tooLarge, "file_too_large");
  }
  return upload;
}

export function removeUpload(file: string | undefined | null) {
  if (file) fs.rmSync(file, { force: true });
}

/**
 * Removes uploads nobody came back for (older than a day) and those a process left when it died (a kill, a
 * crash). Runs at start and before each page preview.
 */
export function sweepUploads(now = Date.now()) {
  let names: string[] = [];
  try {
    names = fs.readdirSync(UPLOADS_DIR);
  } catch {
    return;
  }
  const alive = new Map<string, boolean>();
  for (const name of names) {
    const file = path.join(UPLOADS_DIR, name);
    const tag = OWNED.exec(name)?.[1];
    if (tag !== undefined && !alive.has(tag)) {
      const owner = parseOwner(tag);
      alive.set(tag, owner !== null && ownerAlive(owner));
    }
    try {
      if ((tag !== undefined && !alive.get(tag)) || now - fs.statSync(file).mtimeMs > MAX_AGE_MS) {
        fs.rmSync(file, { force: true });
      }
    } catch {
      /* raced with another sweep */
    }
  }
}
