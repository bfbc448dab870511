import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { badRequest } from "../errors";
import { MESSAGES, SHEET_LIMITS } from "./spreadsheet";

/**
 * Uploaded spreadsheets wait in a private temporary folder between the preview and the import (the page's two
 * steps work without JavaScript, and a file input cannot be filled again). Ids are random; files older than a
 * day are swept.
 */
export const UPLOADS_DIR = path.join(os.tmpdir(), "leaddesk-uploads");
const ID = /^[a-f0-9]{32}$/;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

export const uploadGone = () => badRequest("Загруженный файл не найден: выберите файл ещё раз", "upload_gone");
export const fileRequired = () => badRequest("Выберите файл для импорта", "file_required");

export function newUpload(): { id: string; path: string } {
  fs.mkdirSync(UPLOADS_DIR, { recursive: true, mode: 0o700 });
  const id = crypto.randomBytes(16).toString("hex");
  return { id, path: path.join(UPLOADS_DIR, id) };
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

/** Removes uploads nobody came back for. */
export function sweepUploads(now = Date.now()) {
  let names: string[] = [];
  try {
    names = fs.readdirSync(UPLOADS_DIR);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(UPLOADS_DIR, name);
    try {
      if (now - fs.statSync(file).mtimeMs > MAX_AGE_MS) fs.rmSync(file, { force: true });
    } catch {
      /* raced with another sweep */
    }
  }
}
