/**
 * The Slack stand-in (slack-webhook-receiver.ts) refuses what Slack refuses: an incoming webhook answers
 * a message Block Kit does not allow (over 50 blocks, a section's text over 3,000 characters, a header's
 * over 150) with an HTTP error and `invalid_blocks` (real-behaviour notes in docs/testing.md), and a
 * response_url takes the same Block Kit and at most 5 posts. Before, it recorded such a post in
 * `problems` and answered 200 "ok", so only a test that read `problems` noticed (a fidelity review):
 * a regression in Warden's limits (lib/jobs/render/slack.ts, functions/shared/runs/notify.ts) would
 * have passed the suite.
 */
import { describe, expect, it } from "vitest";
import { afterTest } from "./cleanup.ts";
import { startWebhookReceiver } from "./slack-webhook-receiver.ts";

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });
const post = (url: string, message: object) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(message) });

/** Closed after the test (test/support/cleanup.ts). */
const receiver = async () => afterTest.add(await startWebhookReceiver("0000webhooksecret"));

describe("the Slack stand-in refuses what Slack refuses", () => {
  it("sanity: a message within the limits is taken (200 ok) and nothing is recorded against it", async () => {
    const slack = await receiver();
    const res = await post(slack.webhookUrl, { text: "fine", blocks: [section("fine")] });
    expect([res.status, await res.text()]).toEqual([200, "ok"]);
    expect(slack.problems).toEqual([]);
  });

  it("an incoming webhook refuses 51 blocks with invalid_blocks", async () => {
    const slack = await receiver();
    const res = await post(slack.webhookUrl, { text: "too many", blocks: Array.from({ length: 51 }, (_, i) => section(`line ${i}`)) });
    expect(res.status).not.toBe(200);
    expect(await res.text()).toMatch(/invalid_blocks/);
  });

  it("a response_url refuses a section text over 3,000 characters", async () => {
    const slack = await receiver();
    const res = await post(`${slack.origin}/commands/T0001/1234/abcd`, { response_type: "ephemeral", text: "long", blocks: [section("x".repeat(3001))] });
    expect(res.status).not.toBe(200);
  });

  it("a response_url takes at most 5 posts", async () => {
    const slack = await receiver();
    const url = `${slack.origin}/commands/T0001/1234/abcd`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(url, { text: `post ${i}` })).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).not.toBe(200);
  });
});
