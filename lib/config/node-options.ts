/**
 * V8 settings for Warden's Lambda functions (sst.config.ts sets them as NODE_OPTIONS), the CLI's
 * (bin/cli/heap-settings.ts gives them to its own process), and the benchmark's default for every
 * tool it runs. Warden's live heap stays near 12 MB however large the
 * listing (pages are judged and dropped), but V8's default young generation lets that garbage pile up:
 * peak RSS was 260 MB at 100,000 projects. A small young generation and an old-space ceiling far
 * above the live heap keep it near 120 MB at the same speed (npm run bench; README "Benchmarks").
 */
export const NODE_OPTIONS = "--max-semi-space-size=4 --max-old-space-size=256";
