#!/usr/bin/env node
import { main } from "./cli/main.ts";

const interrupt = new AbortController();
process.once("SIGINT", () => interrupt.abort(new Error("interrupted")));
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: interrupt.signal });
