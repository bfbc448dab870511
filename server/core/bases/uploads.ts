import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { currentOwner, formatOwner, ownerAlive, parseOwner } from "../../process-owner";
import { badRequest } from "../errors";
import { MESSAGES, SHEET_LIMITS } from "./spreadsheet";

/**
 * Uploaded spreadsheets wait in a private temporary folder between the preview and the import (the page's two
 * steps work without JavaScript, and a file input cannot be filled again). Ids are random.
 *
 * A file is written under a name that carries its process, `<id>.<pid>-<start>.part` (server/process-owner.ts),
 * and keeps it while only that process needs it (an API upload lives for its request). So a start after a
 * `kill -9` removes what the dead process left, and never what another live instance is writing. A page upload
 * is renamed to its bare id once stored (`keepUpload`): it waits for the import step, on any instance, and
 * only its age (a day) sweeps it.
 */
export const UPLOADS_DIR = path.join(os.tmpdir(), "leaddesk-uploads");
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

/** Streams an upload to its temporary file; a 400 (and no file) when it exceeds the size limit. */
export async function saveUpload(stream: Readable & { truncated?: boolean }): Promise<{ id: string; path: string }> {
  const upload = newUpload();
  let size = 0;
  let tooLarge = false;
  stream.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > SHEET_LIMITS.maxFileBytes) tooLarge = true;
  });
  try {
    await pipeline(stream, fs.createWriteStream(upload.path, { mode: 0o600 }));
  } catch (error) {
    // A form cut off half-way: no half file left behind.
    removeUpload(upload.path);
    throw error;
  }
  if (tooLarge || stream.truncated) {
    removeUpload(upload.path);
    throw badRequest(MESSAGES.tooLarge, "file_too_large");
  }
  if (size === 0) {
    removeUpload(upload.path);
    throw fileRequired();
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
