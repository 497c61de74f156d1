/**
 * Servers to close after a test. Tests and support modules give what they start to `afterTest` rather
 * than registering a hook: a worker of the "shared" project (vitest.config.ts) loads a support module
 * once for all the files it runs, so a hook it registered as it loaded would hold in the first file
 * alone. test/support/shared-worker.ts closes `afterTest` after every test of every file.
 */
class Closer {
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
