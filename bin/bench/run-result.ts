/** What each tool's runner prints as its last line: the same fields for Warden and the peer. */
export interface RunResult {
  wallMs: number;
  /** Peak resident memory of the runner's process (KB), from getrusage. */
  maxRssKB: number;
  /** Shares the tool says it removed (or found gone). */
  removed: number;
  /** Warden's: the lowest limit of requests in flight its runs went down to after 429s (report stats). */
  lowestConcurrency?: number;
  error?: string;
}

export function printResult(result: RunResult): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function peakRssKB(): number {
  return process.resourceUsage().maxRSS;
}
