/**
 * Every report a test produces is checked against docs/report.schema.json with ajv (draft 2020-12):
 * `validReport(report)` returns it, or throws naming each field that does not fit; `reportJson(text)`
 * parses a CLI's --format json output and checks it alike.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { RunRecord } from "../../lib/jobs/report/index.ts";

const schema = JSON.parse(readFileSync(new URL("../../docs/report.schema.json", import.meta.url), "utf8")) as object;
// strictRequired off: the job reports require fields their shared part (runRecord) defines.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

export function validReport<T>(report: T): T {
  // Through JSON, as every reader gets it (undefined fields gone).
  if (!validate(JSON.parse(JSON.stringify(report)))) {
    const errors = validate.errors!.map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(`the report does not fit docs/report.schema.json:\n${errors.join("\n")}`);
  }
  return report;
}

/** A job's report, once it is there, checked. */
export async function validated<T>(report: Promise<T>): Promise<T> {
  return validReport(await report);
}

// Typed as JSON.parse is, for the tests to read what they expect.
export function reportJson<T = ReturnType<typeof JSON.parse>>(text: string): T {
  return validReport(JSON.parse(text) as T);
}

/** The run record of a report a test writes by hand. */
export function runRecord<J extends RunRecord["job"]>(job: J, dryRun: boolean): RunRecord & { job: J } {
  return {
    schemaVersion: 1,
    job,
    version: "0.0.0-test",
    ...(job === "workflows" ? {} : { gitlabUrl: "https://gitlab.example.com" }),
    policy: { source: "file", path: "warden.yaml", sha256: "0".repeat(64) },
    startedAt: "2026-06-01T00:00:00.000Z",
    finishedAt: "2026-06-01T00:00:01.500Z",
    dryRun,
  };
}
