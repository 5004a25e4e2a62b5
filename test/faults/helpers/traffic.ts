// Traffic through the gateway while a fault happens: workers send requests one after another until told to
// stop (or a request cap), and every answer is kept with its timing. A request never throws: a refused or
// reset connection is recorded as status 0.
import { stack } from '../../helpers/stack.ts';

export interface Outcome {
  /** What the request was (post, like, read, login…), for the figures. */
  kind: string;
  /** When the answer came, in ms of performance.now(). */
  at: number;
  status: number;
  /** The error envelope's code, or how the request failed when there was no answer. */
  code?: string;
  // deno-lint-ignore no-explicit-any
  body?: any;
}

export const ok = (outcome: Outcome) => outcome.status >= 200 && outcome.status < 300;

export async function call(
  kind: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown } = {},
): Promise<Outcome> {
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  try {
    const response = await fetch(`${stack.functionsUrl}${path}`, {
      method,
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { kind, at: performance.now(), status: response.status, code: body?.error?.code, body };
  } catch (error) {
    return { kind, at: performance.now(), status: 0, code: (error as Error).name };
  }
}

/** The pause after a failed request, so that a service that is down is not flooded with requests. */
const failurePauseMs = 50;

export interface Traffic {
  /** Every answer so far, in the order they came. */
  outcomes: Outcome[];
  /** Ends the traffic (each worker finishes its request) and resolves with every answer. */
  stop(): Promise<Outcome[]>;
}

/** `workers` loops of `request(worker, n)` until stopped or `maxRequests` in all have been sent. */
export function startTraffic(
  workers: number,
  request: (worker: number, n: number) => Promise<Outcome>,
  maxRequests = 20_000,
): Traffic {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let sent = 0;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let n = 0; !stopped && sent < maxRequests; n += 1) {
      sent += 1;
      const outcome = await request(worker, n);
      outcomes.push(outcome);
      // As a client would, it waits a moment before trying again after a failure.
      if (!ok(outcome)) await sleep(failurePauseMs);
    }
  });
  return {
    outcomes,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it is true; false once `timeoutMs` have passed. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}
