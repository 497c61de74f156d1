/** The benchmark's side of sim-process.ts: start a simulator in a child process and ask it things. */
import { fork } from "node:child_process";
import { once } from "node:events";
import type { SimCounters } from "../../sim/gitlab/index.ts";
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
  const child = fork(new URL("./sim-process.ts", import.meta.url), { stdio: "inherit" });
  const ask = async <T>(msg: object): Promise<T> => {
    child.send(msg);
    const [answer] = (await once(child, "message")) as [T];
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
