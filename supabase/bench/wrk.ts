// The facade's load generator: wrk, a C program, so the driver does not eat the two cores the stack runs on.
// Debian packages it; installed on first use like Chromium (supabase/stack/chromium.ts). A Lua script gives
// each wrk thread one caller's access token, the method and the body, and prints the figures as JSON.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { info } from '../stack/log.ts';
import { run } from '../stack/processes.ts';
import { type Load, noLoad } from './load.ts';

const wrkPath = '/usr/bin/wrk';

export async function ensureWrkInstalled(logDir: string): Promise<void> {
  if (existsSync(wrkPath)) return;
  const command = 'apt-get update && apt-get install -y --no-install-recommends wrk';
  if (Deno.uid() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`wrk is not installed. Install it with: sudo sh -c '${command}'`);
  }
  info(`wrk is missing: running ${command}`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get-update', 'apt-get', { args: ['update'], env, logDir });
  await run('apt-get-install', 'apt-get', { args: ['install', '-y', '--no-install-recommends', 'wrk'], env, logDir });
}

export interface HttpLoad {
  url: string;
  method: 'GET' | 'POST';
  body?: unknown;
  /** One per wrk thread, in turn: with several, each connection is another caller. */
  tokens: string[];
  /** Each caller's own path and body (index as `tokens`), instead of the url's and `body`: targets spread out. */
  perCaller?: { path: string; body?: unknown }[];
  /** Sent with every request besides the token (PostgREST's `apikey`). */
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Count 4xx and 5xx answers as answers (a request measured for its refusal), not as failures. */
  errorsAreAnswers?: boolean;
  /**
   * Seconds before the measured run starts, its figures thrown away: the same load for all but the last second,
   * which lets the answers still in flight finish (the gateway carries on with a request whose client left).
   */
  warmUp?: number;
}

function luaScript(load: HttpLoad): string {
  const quote = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string here (ASCII)
  return `
local tokens = {${load.tokens.map(quote).join(', ')}}
local paths = {${(load.perCaller ?? []).map((c) => quote(c.path)).join(', ')}}
local bodies = {${
    (load.perCaller ?? []).map((c) => quote(c.body === undefined ? '' : JSON.stringify(c.body))).join(', ')
  }}
local started = 0
function setup(thread)
  started = started + 1
  thread:set("token", tokens[(started - 1) % #tokens + 1])
  if #paths > 0 then
    thread:set("path", paths[(started - 1) % #paths + 1])
    thread:set("body", bodies[(started - 1) % #bodies + 1])
  end
end
function init(args)
  wrk.method = ${quote(load.method)}
  wrk.headers["Authorization"] = "Bearer " .. token
  ${
    Object.entries(load.headers ?? {}).map(([name, value]) => `wrk.headers[${quote(name)}] = ${quote(value)}`).join(
      '\n  ',
    )
  }
  ${
    load.body === undefined ? '' : `wrk.headers["Content-Type"] = "application/json"
  wrk.body = ${quote(JSON.stringify(load.body))}`
  }
  if path ~= nil then
    wrk.path = path
    if body ~= "" then
      wrk.headers["Content-Type"] = "application/json"
      wrk.body = body
    end
  end
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "status": %d, "socket": %d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout))
end
`;
}

export async function runWrk(load: HttpLoad, scratchDir: string): Promise<Load> {
  if (load.warmUp && load.warmUp > 1) {
    await runWrk({ ...load, seconds: load.warmUp - 1, warmUp: undefined }, scratchDir);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const script = join(scratchDir, 'wrk.lua');
  await Deno.writeTextFile(script, luaScript(load));
  // One thread per caller when there are several, so each connection keeps its caller; else two threads.
  const threads = load.tokens.length > 1 ? load.connections : Math.min(2, load.connections);
  const output = await new Deno.Command(wrkPath, {
    args: [
      '-t',
      String(threads),
      '-c',
      String(load.connections),
      '-d',
      `${load.seconds}s`,
      '--timeout',
      '15s',
      '-s',
      script,
      load.url,
    ],
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const line = /^RESULT (.*)$/m.exec(text);
  if (!output.success || !line) return noLoad(`wrk: ${new TextDecoder().decode(output.stderr).trim() || text.trim()}`);
  const r = JSON.parse(line[1]);
  // wrk counts only answers that arrived within the run.
  if (r.requests === 0) return noLoad(`no answer within the ${load.seconds} s run`);
  const failures = (load.errorsAreAnswers ? 0 : r.status) + r.socket;
  return {
    perSecond: (r.requests - failures) / (r.duration_us / 1e6),
    p50: r.p50_us / 1000,
    p99: r.p99_us / 1000,
    failed: failures ? `${failures} of ${r.requests} failed` : undefined,
  };
}
