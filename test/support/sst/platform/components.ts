/** The stand-in's `sst` global, shaped as SST's platform/src/components/index.ts: `sst.aws.*`. */
export * as aws from "./aws.ts";
