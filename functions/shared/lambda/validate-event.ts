/**
 * Middleware: the event must match the schema exactly (strict schemas refuse unknown fields), and is
 * replaced by the parsed value. A mismatch fails before anything runs, naming each offending field.
 */
import type { MiddlewareObj } from "@middy/core";
import type { z } from "zod";
import { check, describeIssues } from "./issues.ts";

export class EventError extends Error {
  override name = "EventError";
}

export function validateEvent<S extends z.ZodType>(schema: S): MiddlewareObj<z.output<S>> {
  return {
    before(request) {
      const parsed = check(schema, request.event);
      if (!parsed.success) throw new EventError(`invalid event: ${describeIssues(parsed.error)}`);
      request.event = parsed.data;
    },
  };
}
