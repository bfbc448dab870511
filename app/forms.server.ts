/**
 * The posted form of a page action. A body that does not parse as the form its Content-Type names (a broken
 * multipart post; other types never get here, server/web.ts answers them 415) is the client's fault: a 400 with a
 * Russian text, instead of a TypeError that Remix answers 500 and logs with its stack.
 */
export async function readFormBody(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch (error) {
    if (error instanceof TypeError) throw new Response("Некорректные данные формы", { status: 400 });
    throw error;
  }
}
