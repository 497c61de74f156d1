/**
 * What the tests of an AWS service that stalls share (test/functions/*-stall.test.ts): a policy letting
 * signedCommand's default user run chat commands in its default channel, loopback endpoints standing in
 * for the stalled service (closed after each test), and a race against the caller's wait.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { standardPolicy } from "./policies.ts";

/** The standard policy, with signedCommand's default user allowed chat commands in its default channel. */
export const CHAT_POLICY = `${standardPolicy()}
chatops:
  slack:
    users: ["U012ABCDEF"]
    channels: ["C0123456"]
`;

/** Loopback servers for this file's tests, each closed (its connections too) after the test that started it. */
export function loopbackEndpoints(): { listen(server: Server): Promise<string>; silent(): Promise<string> } {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  const listen = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  // Reads the request and never answers.
  return { listen, silent: () => listen(createServer((req) => req.resume())) };
}

export const NO_ANSWER = Symbol("no answer");

/** What `call` settles to, or NO_ANSWER once `ms` have passed (the caller has stopped waiting). */
export function within<T>(ms: number, call: Promise<T>): Promise<T | typeof NO_ANSWER> {
  return Promise.race([call, new Promise<typeof NO_ANSWER>((resolve) => setTimeout(() => resolve(NO_ANSWER), ms))]);
}
