/** Any other path: the 404 page of SPEC §2 (rendered by the root error boundary). */
export async function loader() {
  throw new Response("Страница не найдена", { status: 404 });
}

export default function NotFound() {
  return null;
}
