// Keeps the local stack serving when one of its services dies, as hosted Supabase and `supabase start` do:
// only the failed service is restarted, after a pause that doubles with each recent failure (0.5 s, 1 s, 2 s,
// 4 s), and the stack gives up (stops everything, exit 1) when one service has failed 5 times within a
// minute. The other services ride out the outage: the gateway answers 503 for a service that is down and the
// facade's /health names it. Ctrl-C (stopAll) stops the services newest first.
// Each service's current (or last) pid is written to <run dir>/<name>.pid, for operators and the fault suite.
import { join } from 'node:path';
import { info, warn } from './log.ts';
import { type Running, tail } from './processes.ts';

export interface Service {
  name: string;
  /** Starts the service; resolves once it is ready (throws, leaving nothing behind, when it is not). */
  start(): Promise<Running>;
  /**
   * Called when the service ended by itself: a process that has taken its place, to watch instead of
   * restarting (a Postgres someone restarted with pg_ctl), or undefined.
   */
  successor?(ended: Running): Promise<Running | undefined>;
  /** Its log, whose tail is shown when it dies. */
  logFile?: string;
}

const giveUp = { failures: 5, withinMs: 60_000 };
const firstPauseMs = 500;

interface Supervised {
  service: Service;
  running?: Running;
  /** A start under way, which stopAll lets finish (and then stops) so no process is left behind. */
  starting?: Promise<void>;
  /** When it failed recently (exits and failed restarts), for the backoff and the give-up rule. */
  failures: number[];
}

const supervised: Supervised[] = [];
let stopping = false;
let runDir = '';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the pid files go (the profile's run folder). */
export function setRunDir(dir: string): void {
  runDir = dir;
  Deno.mkdirSync(dir, { recursive: true });
}

/** The pid of the named service's current process (undefined: not running under this supervisor). */
export function pidOf(name: string): number | undefined {
  return supervised.find((entry) => entry.service.name === name)?.running?.pid;
}

function pidFile(name: string): string {
  return join(runDir, `${name}.pid`);
}

function track(entry: Supervised, running: Running): void {
  entry.running = running;
  Deno.writeTextFileSync(pidFile(entry.service.name), `${running.pid}\n`);
}

/**
 * Starts the service; undefined when the stack began stopping meanwhile (the new process is then stopped
 * too). stopAll waits for a start under way, so a process started as the stack stops is not left behind.
 */
async function startTracked(entry: Supervised): Promise<Running | undefined> {
  let started: Running | undefined;
  entry.starting = entry.service.start().then(async (running) => {
    if (stopping) await running.stop();
    else started = running;
  });
  try {
    await entry.starting;
  } finally {
    entry.starting = undefined;
  }
  if (started) track(entry, started);
  return started;
}

/** Starts a service and watches it from then on. A failure of this first start is the caller's to report. */
export async function supervise(service: Service): Promise<void> {
  const entry: Supervised = { service, failures: [] };
  supervised.push(entry);
  if (!await startTracked(entry)) throw new Error(`${service.name} was not started: the stack is stopping`);
  watch(entry).catch((error) => warn(`${service.name} is NO LONGER SUPERVISED: ${(error as Error).message}`));
}

async function watch(entry: Supervised): Promise<void> {
  const { name } = entry.service;
  for (;;) {
    const ended = entry.running!;
    const how = await ended.exited;
    if (stopping) return;
    const successor = await entry.service.successor?.(ended);
    if (stopping) return;
    if (successor) {
      info(`${name} was restarted outside the stack (pid ${ended.pid} → ${successor.pid}): watching the new one`);
      track(entry, successor);
      continue;
    }
    const log = entry.service.logFile
      ? ` Its log, ${entry.service.logFile}, ends with:\n${await tail(entry.service.logFile, 8)}`
      : '';
    warn(`${name} exited unexpectedly (${how}).${log}`);
    if (!await restart(entry)) return;
  }
}

/** Restarts with backoff until it is up (true), the stack stops (false), or the give-up rule ends the stack. */
async function restart(entry: Supervised): Promise<boolean> {
  const { name } = entry.service;
  const down = performance.now();
  for (;;) {
    const now = Date.now();
    entry.failures = [...entry.failures.filter((at) => now - at < giveUp.withinMs), now];
    if (entry.failures.length >= giveUp.failures) await abandon(name);
    const pause = firstPauseMs * 2 ** (entry.failures.length - 1);
    warn(
      `${name}: restarting in ${
        pause / 1000
      } s (${entry.failures.length} failure(s) within a minute; the stack gives up at ${giveUp.failures})`,
    );
    await sleep(pause);
    if (stopping) return false;
    let started: Running | undefined;
    try {
      started = await startTracked(entry);
    } catch (error) {
      warn(`${name} did not come back: ${(error as Error).message}`);
      continue;
    }
    if (!started) return false;
    info(`${name} is back (pid ${started.pid}) after ${((performance.now() - down) / 1000).toFixed(1)} s`);
    return true;
  }
}

let giveUpHandlers: (() => void)[] = [];

/** Runs `handler` when the stack gives up, before it stops (a test run in progress is ended with it). */
export function onGiveUp(handler: () => void): void {
  giveUpHandlers.push(handler);
}

async function abandon(name: string): Promise<never> {
  for (const handler of giveUpHandlers) handler();
  giveUpHandlers = [];
  warn(
    `GIVING UP: ${name} failed ${giveUp.failures} times within ${
      giveUp.withinMs / 1000
    } s. Stopping the whole stack; ` +
      `see its log in the logs folder printed at start.`,
  );
  await stopAll();
  Deno.exit(1);
}

/** Stops every service, newest first, and waits for each to exit; no restart happens from then on. */
export async function stopAll(): Promise<void> {
  stopping = true;
  while (supervised.length > 0) {
    const entry = supervised.pop()!;
    await entry.starting?.catch(() => {});
    await entry.running?.stop();
    await Deno.remove(pidFile(entry.service.name)).catch(() => {});
  }
}
