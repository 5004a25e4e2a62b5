// The soak's load: a fixed number of clients in this process, each a load account of its own (so a session
// is never refreshed by two at once), each drawing its next operation from the mix by weight and sending it
// with Deno's fetch, as fast as answers come or paced to a total rate. Every request's latency and status is
// kept by operation and by window, raw, for the percentiles.
import type { Driver } from './drivers.ts';
import { type Answer, type Client, mix, type Operation, type Targets } from './soak-mix.ts';

export interface Tally {
  latencies: number[];
  statuses: Map<number, number>;
  /** The first answer's text of each status that is not 2xx, to tell its cause. */
  examples: Map<number, string>;
}

/** Requests by window (index from the start) and operation; a request counts in the window it started in. */
export class Recorder {
  readonly windows: Map<string, Tally>[];

  constructor(private readonly startedAt: number, private readonly windowMs: number, windowCount: number) {
    this.windows = Array.from({ length: windowCount }, () => new Map());
  }

  record(op: string, startedAt: number, status: number, ms: number, text: string): void {
    const index = Math.min(this.windows.length - 1, Math.floor((startedAt - this.startedAt) / this.windowMs));
    const window = this.windows[Math.max(0, index)];
    let tally = window.get(op);
    if (!tally) window.set(op, tally = { latencies: [], statuses: new Map(), examples: new Map() });
    tally.latencies.push(ms);
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    if ((status < 200 || status >= 300) && !tally.examples.has(status)) tally.examples.set(status, text.slice(0, 300));
  }
}

export interface Endpoints {
  /** The gateway's base URLs. */
  functions: string;
  rest: string;
  auth: string;
  anonKey: string;
}

async function timed(recorder: Recorder, op: string, url: string, init: RequestInit): Promise<Answer> {
  const begin = performance.now();
  let status = 0;
  let text = '';
  try {
    const response = await fetch(url, init);
    text = await response.text();
    status = response.status;
  } catch (error) {
    // No answer at all (connection refused or reset): counted as status 0, an error like a 5xx.
    text = String(error);
  }
  recorder.record(op, begin, status, performance.now() - begin, text);
  let body;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status, body };
}

export function client(user: Driver, at: Endpoints, recorder: Recorder): Client {
  const json = (body: unknown) => body === undefined ? undefined : JSON.stringify(body);
  return {
    user,
    facade: (op, method, path, body) =>
      timed(recorder, op, `${at.functions}/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${user.accessToken}`, 'Content-Type': 'application/json' },
        body: json(body),
      }),
    rest: (op, method, path, body, prefer) =>
      timed(recorder, op, `${at.rest}${path}`, {
        method,
        headers: {
          apikey: at.anonKey,
          Authorization: `Bearer ${user.accessToken}`,
          'Content-Type': 'application/json',
          ...(prefer ? { Prefer: prefer } : {}),
        },
        body: json(body),
      }),
    auth: (op, path, body, token) =>
      timed(recorder, op, `${at.auth}${path}`, {
        method: 'POST',
        headers: {
          apikey: at.anonKey,
          'Content-Type': 'application/json',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: json(body),
      }),
  };
}

function drawer(operations: Operation[]): () => Operation {
  const total = operations.reduce((sum, op) => sum + op.weight, 0);
  return () => {
    let left = Math.random() * total;
    for (const op of operations) if ((left -= op.weight) < 0) return op;
    return operations[operations.length - 1];
  };
}

export interface LoadSettings {
  /** performance.now() at which the load stops. */
  until: number;
  /** Operations per second for all the clients together; 0: each client as fast as its answers come. */
  rate: number;
}

/** Runs every client until `until`, each its own account. */
export async function runLoad(clients: Client[], targets: Targets, s: LoadSettings): Promise<void> {
  const draw = drawer(mix);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await Promise.all(clients.map(async (c, i) => {
    const everyMs = s.rate > 0 ? clients.length * 1000 / s.rate : 0;
    // Paced clients start spread over one interval, not all at once.
    let next = performance.now() + everyMs * i / clients.length;
    while (performance.now() < s.until) {
      if (everyMs) {
        await sleep(Math.max(0, next - performance.now()));
        next += everyMs;
      }
      await draw().run(c, targets);
    }
  }));
}

/** Each operation once, as a warm-up: answers those whose requests did not all answer 2xx. */
export async function warmUp(c: Client, targets: Targets, recorder: Recorder): Promise<string[]> {
  for (const op of mix) await op.run(c, targets);
  const failing: string[] = [];
  for (const [name, tally] of recorder.windows[0]) {
    for (const [status, example] of tally.examples) failing.push(`${name}: ${status} ${example}`);
  }
  return failing;
}
