/**
 * A request started now and awaited later (a page asked for ahead, a look-up sent beside another). If
 * it fails before anyone awaits it, Node would end the process on the unhandled rejection; marked so,
 * the failure waits for its reader, who gets it thrown where the result is used.
 */
export function awaitedLater<T>(started: Promise<T>): Promise<T> {
  started.catch(() => undefined);
  return started;
}
