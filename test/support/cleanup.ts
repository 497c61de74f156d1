/**
 * Servers to close after a test. A support module gives what it starts to `afterTest` rather than
 * registering a hook as it loads: a worker of the "shared" project (vitest.config.ts) loads a module
 * once for all the files it runs, so such a hook would hold in the first file alone.
 * test/support/shared-worker.ts closes `afterTest` after every test of every file.
 */
export class Closer {
  private readonly open: { close(): Promise<void> }[] = [];

  add<T extends { close(): Promise<void> }>(thing: T): T {
    this.open.push(thing);
    return thing;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((t) => t.close()));
  }
}

/** What the running test started through a support module. */
export const afterTest = new Closer();
