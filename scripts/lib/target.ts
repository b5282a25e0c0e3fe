/** Shared by the CLI tools: who they talk to, and as whom. */

/** The development key the local fence accepts; sent as a Bearer token. */
export const DEFAULT_KEY = "tf_dev_local_key";

/** The API key: `--key`, else `TOOLFENCE_KEY`, else the development key. */
export function apiKey(flag: string | undefined): string {
  return flag ?? process.env.TOOLFENCE_KEY ?? DEFAULT_KEY;
}

/** Headers every request of the tools carries. */
export function authHeaders(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** Whether `url` points at this machine (127.0.0.0/8, localhost or ::1). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The target URL; the tool stops (exit 2) unless it is loopback or remote targets were
 * allowed, so a typo never sends generated traffic to someone else's host.
 */
export function targetUrl(raw: string, allowRemote: boolean): URL {
  const url = URL.parse(raw);
  if (url === null) return stop(`${JSON.stringify(raw)} is not a URL.`);
  if (!isLoopback(url) && !allowRemote) {
    return stop(`${url.host} is not a loopback address; pass --allow-remote to target it.`);
  }
  return url;
}

function stop(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
