/** CloudWatch's embedded metric format, as CloudWatch Logs reads it from a Lambda's stdout. */
import { expect } from "vitest";

export interface Emf {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** The EMF documents among JSON log lines (the ones with an `_aws` member). */
export function emfRecords(lines: Record<string, unknown>[]): Emf[] {
  return lines.filter((line): line is Emf => typeof line["_aws"] === "object" && line["_aws"] !== null);
}

/** What CloudWatch requires of an EMF document: every dimension and metric a top-level member, metric values numbers. */
export function expectValidEmf(doc: Emf): void {
  expect(Number.isInteger(doc._aws.Timestamp)).toBe(true);
  expect(Math.abs(doc._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  for (const directive of doc._aws.CloudWatchMetrics) {
    expect(directive.Namespace).toMatch(/^[\w./#:-]{1,255}$/);
    for (const set of directive.Dimensions) {
      expect(set.length).toBeLessThanOrEqual(30);
      for (const name of set) expect(typeof doc[name], name).toBe("string");
    }
    expect(directive.Metrics.length).toBeLessThanOrEqual(100);
    for (const { Name, Unit } of directive.Metrics) {
      expect(typeof doc[Name], Name).toBe("number");
      expect(["Count", "Milliseconds"]).toContain(Unit);
    }
  }
}
