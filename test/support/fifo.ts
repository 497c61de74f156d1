/** A named pipe's writing end, opened once a reader has it open (the CLI reading its policy from it). */
import { constants, openSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export async function opened(fifo: string): Promise<number> {
  for (;;) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENXIO") throw err;
      await sleep(20);
    }
  }
}
