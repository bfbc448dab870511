import type { TestApp } from "./app";

/**
 * An import through /importbase without JavaScript, as a browser posts it: the preview (the file), then the import
 * (its upload id, the column choices). Answers both pages' responses.
 */
export async function importWithoutJavaScript(t: TestApp, cookie: string, name: string, file: Buffer, mappings: string[]) {
  const post = () =>
    t.request.post("/importbase").set("Cookie", cookie).set("Host", "127.0.0.1").set("Origin", "http://127.0.0.1").set("Accept-Encoding", "identity");
  const preview = await post().field("intent", "preview").field("name", name).attach("file", file, "base.csv");
  if (preview.status !== 200) return { preview, saved: null };
  const uploadId = /name="uploadId" value="([^"]+)"/.exec(preview.text)![1];
  const fileName = /name="fileName" value="([^"]+)"/.exec(preview.text)![1];
  let saved = post()
    .field("intent", "import")
    .field("name", name)
    .field("uploadId", uploadId)
    .field("fileName", fileName)
    .field("sheet", "1")
    .field("columns", String(mappings.length))
    .field("hasHeader", "true");
  mappings.forEach((field, i) => (saved = saved.field(`map_${i}`, field)));
  return { preview, saved: await saved };
}
