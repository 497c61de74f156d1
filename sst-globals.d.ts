/**
 * The globals SST gives sst.config.ts, for the type check where SST's own declarations
 * (.sst/platform/config.d.ts, written by `sst install`, which downloads Pulumi) are absent — CI included.
 * Every name is one SST or Pulumi exports: `aws` is the real @pulumi/aws at the version SST 4.17 pins,
 * `$util` and `$interpolate` the real @pulumi/pulumi, and `sst` the stand-in of SST's components that the
 * tests deploy under Pulumi's mocks (test/support/sst/platform), whose argument types carry SST's names and
 * refuse what SST's refuse. Not named sst-env.d.ts: SST writes a file of that name at the project root.
 */
import * as pulumi from "@pulumi/pulumi";
import * as awsProvider from "@pulumi/aws";
import * as components from "./test/support/sst/platform/components.ts";

declare global {
  // @ts-ignore: SST's own global.d.ts declares it the same way.
  export import sst = components;
  // @ts-ignore: likewise.
  export import aws = awsProvider;
  // @ts-ignore: likewise.
  export import $util = pulumi;
  const $interpolate: typeof pulumi.interpolate;
  /** SST's $app, as the run phase defines it from app() and the stage. */
  const $app: Readonly<{ name: string; stage: string; removal: "remove" | "retain" | "retain-all"; protect: boolean }>;
  /** SST's $dev: true under `sst dev`, false under `sst deploy`. */
  const $dev: boolean;
  /** SST's Config, for the options used: app() is evaluated first, from a bundle that may import nothing. */
  function $config<T extends { app(input: { stage: string }): { name: string; home: "aws"; removal?: "remove" | "retain" | "retain-all"; protect?: boolean }; run(): Promise<Record<string, unknown> | void> }>(
    config: T,
  ): T;
}
