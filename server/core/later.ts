/**
 * A promise started now and awaited later (a write in flight, the next page read ahead). Until it is awaited,
 * its rejection must not count as unhandled: Node would report it, or end the process, while the code that will
 * await it is still busy, or has already failed for another reason. Awaiting it still throws.
 */
export function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
