/**
 * How a job is cut into steps. Run directly (the CLI, a plain Lambda invocation, the demo), a step
 * just runs and the job is one slice of work. In a durable execution (functions/shared/durable/steps.ts) each
 * step's result is checkpointed and a replay returns it without running it again, so a job that does
 * its work in steps, and keeps nothing between them that a step did not return, resumes in a later
 * invocation where the last one stopped. Step results must be JSON.
 */
/**
 * Attempts of a durable step each cut short by its invocation's deadline (each one makes progress, or waits
 * out a server's Retry-After; functions/shared/durable/steps.ts): a step may give up on its last one.
 */
export const DEADLINE_ATTEMPTS = 10;

export interface Steps {
  /**
   * Runs `run` as one step; `attempt` is 1, or more when an earlier attempt failed or was cut off.
   * `changes`: the step changes things (its attempts must know of each other, see functions/shared/durable/steps.ts).
   */
  step<T>(name: string, run: (attempt: number) => Promise<T>, opts?: { changes?: boolean }): Promise<T>;
  /** When work begun in a step now must stop starting requests so the step can end and be recorded (epoch ms). */
  sliceEnd(): number;
  /** Most changes or findings one step may record (a checkpoint's size is bounded). */
  perStep: number;
  /**
   * Most bytes of them, as JSON, one step may record; absent, no bound. Names are chosen by whoever
   * creates a project or a group, and long random ones do not compress: a count alone would let them
   * take a step past what a checkpoint holds, failing it on every attempt.
   */
  perStepBytes?: number;
  /** Ends this invocation when `due` (a step said its slice is spent), to resume in the next; run directly, nothing. */
  pause(name: string, due: boolean): Promise<void>;
  /**
   * In a durable execution, aborts shortly before this invocation ends: a step's requests stop with it
   * and the step ends with what it did (a removal step returns; others fail, to be attempted again in
   * the next invocation) rather than being cut off mid-way, its work lost. Run directly, none.
   */
  deadline?: AbortSignal;
}

/** The signal for a step's requests: the run's own, and the invocation's deadline where there is one. */
export function stepSignal(steps: Steps, signal: AbortSignal | undefined): AbortSignal | undefined {
  return steps.deadline && signal ? AbortSignal.any([signal, steps.deadline]) : (steps.deadline ?? signal);
}

/** A job run in one go: one slice, nothing recorded. */
export const direct: Steps = {
  step: (_name, run) => run(1),
  sliceEnd: () => Infinity,
  perStep: Infinity,
  pause: async () => {},
};

/**
 * Where `items` are cut into steps: the end of each part, at most `steps.perStep` items and (but for
 * one item alone) `steps.perStepBytes` bytes of JSON each. From what is recorded, so the same on replay.
 */
export function partEnds(items: readonly unknown[], steps: Pick<Steps, "perStep" | "perStepBytes">): number[] {
  const ends: number[] = [];
  let [count, bytes] = [0, 0];
  for (let i = 0; i < items.length; i++) {
    const size = steps.perStepBytes === undefined ? 0 : JSON.stringify(items[i]).length;
    if (count > 0 && (count >= steps.perStep || bytes + size > (steps.perStepBytes ?? Infinity))) {
      ends.push(i);
      [count, bytes] = [0, 0];
    }
    count++;
    bytes += size;
  }
  if (count > 0 || ends.length === 0) ends.push(items.length);
  return ends;
}

/** How a step's result holds its entries, one per stray: read them out, and put a part of them back. */
export interface Entries<T, E> {
  of(result: T): E[];
  with(result: T, part: E[]): T;
}

/**
 * A step whose result holds an entry per stray, which may be more than one checkpoint holds (256 KB;
 * 29,737 strays' authors took 441 KB compressed): `work` runs once; the step `name` records its result
 * with the first perStep entries and how many parts there are, and `name 2`, `name 3`, … the next
 * perStep entries each. A part whose step finds nothing worked in its invocation (the execution resumed
 * between the parts) runs `work` again: the same entries, read again, and that result (its entries left
 * out) is given back in `again`, for its requests to be counted. Run directly (perStep Infinity), one step.
 * `work` is told the attempt of the step it runs in.
 */
export async function stepInParts<T extends object, E>(steps: Steps, name: string, work: (attempt: number) => Promise<T>, entries: Entries<T, E>): Promise<{ result: T; entries: E[]; again: T[] }> {
  let worked: Promise<T> | undefined;
  // Worked once for every part, unless it failed: a step attempted again (its invocation's deadline, a crash) works anew.
  const all = (attempt: number) =>
    (worked ??= work(attempt).catch((err: unknown) => {
      worked = undefined;
      throw err;
    }));
  const size = steps.perStep;
  const first = await steps.step(name, async (attempt) => {
    const result = await all(attempt);
    const listed = entries.of(result);
    const ends = partEnds(listed, steps);
    return { ...entries.with(result, listed.slice(0, ends[0])), parts: ends.length, ends };
  });
  const { parts, ends, ...result } = first as typeof first & { ends?: number[] };
  const listed = [...entries.of(result as T)];
  const again: T[] = [];
  // A result recorded before results came in parts has no `parts`: it holds every entry; one recorded before
  // parts were cut by their bytes too has no `ends`: perStep entries each.
  const bounds = (n: number) => (ends ? [ends[n - 2]!, ends[n - 1]!] : [(n - 1) * size, n * size]);
  for (let n = 2; n <= (parts ?? 1); n++) {
    const part = await steps.step(`${name} ${n}`, async (attempt): Promise<{ part: E[]; again?: T }> => {
      const fresh = !worked;
      const result = await all(attempt);
      return { part: entries.of(result).slice(...bounds(n)), ...(fresh && { again: entries.with(result, []) }) };
    });
    listed.push(...part.part);
    if (part.again) again.push(part.again);
  }
  return { result: result as T, entries: listed, again };
}
