/**
 * The `$` globals of SST's shim (platform/src/shim/run.js) that sst.config.ts may use, injected into the
 * bundle the way SST injects its shim; `$app` is defined at build time, as SST defines it.
 */
import * as pulumi from "@pulumi/pulumi";

export { pulumi as $util };
export const $interpolate = pulumi.interpolate;
export const $output = pulumi.output;
export const $resolve = pulumi.all;
export const $concat = pulumi.concat;
export const $jsonStringify = pulumi.jsonStringify;
export const $config = <T>(config: T): T => config;
