/** The benchmark's side of sim-process.ts: start a simulator in a child process and ask it things. */
import { fork } from "node:child_process";
import { once } from "node:events";
import type { SimCounters } from "../../sim/gitlab/index.ts";
import { tracked } from "./leftovers.ts";
import type { NoticeCount } from "./notices-world.ts";
import type { SimConfig, SimShape } from "./sim-process.ts";

export interface SimHost extends SimShape {
  counters(): Promise<SimCounters>;
  remainingStrays(): Promise<number>;
  /** The notices project's issues (a simulator started with noticesProject). */
  notices(): Promise<NoticeCount>;
  stop(): void;
}

export async function startSimHost(config: SimConfig): Promise<SimHost> {
  const child = tracked(fork(new URL("./sim-process.ts", import.meta.url), { stdio: "inherit" }));
  // A simulator that dies (out of memory building its world, or killed) answers nothing: its exit fails the wait, and the row.
  const exited = once(child, "exit").then(([code, signal]) => {
    throw new Error(`the simulator of ${config.projects} projects exited (${signal ? `signal ${signal}` : `code ${code}`}) before it answered: its output above says why (a heap out of memory shows there)`);
  });
  exited.catch(() => undefined);
  const ask = async <T>(msg: object): Promise<T> => {
    child.send(msg);
    const [answer] = (await Promise.race([once(child, "message"), exited])) as [T];
    return answer;
  };
  const shape = await ask<SimShape>({ type: "start", config });
  return {
    ...shape,
    counters: () => ask({ type: "counters" }),
    remainingStrays: () => ask({ type: "remaining-strays" }),
    notices: () => ask({ type: "notices" }),
    stop: () => child.kill(),
  };
}
