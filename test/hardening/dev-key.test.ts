import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEV_KEY, json } from "../helpers.ts";

/** A request presenting the development key with the given URL and extra headers. */
function withDevKey(url: string, headers: Record<string, string>) {
  return exports.default.fetch(url, {
    headers: { Authorization: `Bearer ${DEV_KEY}`, ...headers },
  });
}

const LOOPBACK_CLIENT = { "CF-Connecting-IP": "127.0.0.1" };

describe("the development key", () => {
  it("is honoured from this machine to a loopback host", async () => {
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
      const res = await withDevKey(`http://${host}/v1/tools`, LOOPBACK_CLIENT);
      expect(res.status, host).toBe(200);
    }
  });

  it.each(["127.1", "0x7f000001", "2130706433", "LOCALHOST", "[0:0:0:0:0:0:0:1]"])(
    "is honoured with Host %s from this machine: the URL parser reads it as a loopback name",
    async (host) => {
      const res = await withDevKey(`http://${host}/v1/tools`, LOOPBACK_CLIENT);
      expect(res.status).toBe(200);
    },
  );

  it.each(["127.1", "0x7f000001", "2130706433", "127.0.0.1", "localhost"])(
    "is refused with Host %s from a client that is not this machine",
    async (host) => {
      const remote = await withDevKey(`http://${host}/v1/tools`, {
        "CF-Connecting-IP": "203.0.113.9",
      });
      expect(remote.status).toBe(401);
      expect(await json(remote)).toMatchObject({ reason: "unauthenticated" });
      const edge = await withDevKey(`http://${host}/v1/tools`, {
        ...LOOPBACK_CLIENT,
        "CF-Ray": "8f1e-DFW",
      });
      expect(edge.status).toBe(401);
    },
  );

  it.each(["127.0.0.1.nip.io", "toolfence.example.com"])(
    "is refused on host %s even from a loopback client",
    async (host) => {
      const res = await withDevKey(`http://${host}/v1/tools`, LOOPBACK_CLIENT);
      expect(res.status).toBe(401);
    },
  );

  it.each(["203.0.113.9", "10.0.0.1", "::ffff:127.0.0.1", "127.0.0.1, 203.0.113.9", ""])(
    "is refused from client address %j, even with a loopback Host",
    async (address) => {
      const res = await withDevKey("http://127.0.0.1/v1/tools", { "CF-Connecting-IP": address });
      expect(res.status).toBe(401);
    },
  );
});
