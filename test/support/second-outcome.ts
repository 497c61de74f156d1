/**
 * Two requests one after the other, as a listing sends them: the second's outcome (answer or error), or
 * "still waiting" if it has not settled within `ms`, when it is aborted. What a hold of the rate limiter
 * after the first answer does to the next request.
 */
export async function secondOutcome(get: (signal?: AbortSignal) => Promise<unknown>, ms: number): Promise<unknown> {
  await get();
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve("still waiting"), ms)));
  try {
    return await Promise.race([get(ac.signal).then((v) => v, (e: unknown) => e), late]);
  } finally {
    clearTimeout(timer);
    ac.abort(new Error("test over"));
  }
}
