/** SST's auto/run.ts, as far as it matters here: the program runs with SST's naming rule in force. */
import { uniqueComponentNames } from "./component.ts";

export async function run(program: () => Promise<Record<string, unknown> | void>): Promise<Record<string, unknown>> {
  uniqueComponentNames();
  return (await program()) || {};
}
