// Child processes of the local stack: one-shot commands and long-running services, their output sent to a
// log file. Also the readiness and free-port checks every service needs. supervisor.ts watches the services.
import { join } from 'node:path';

export interface SpawnOptions {
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  logDir: string;
  /** Postgres shuts down fast on SIGINT; SIGTERM would wait for clients to disconnect. */
  stopSignal?: Deno.Signal;
}

/** A service process the stack runs: started by it, or (Postgres) adopted from whoever restarted it. */
export interface Running {
  pid: number;
  /** Resolves when the process has ended, with how it ended ("code 1", "signal SIGKILL"). */
  exited: Promise<string>;
  /** Stops it and waits until it is gone. */
  stop(): Promise<void>;
}

async function openLog(logDir: string, name: string) {
  await Deno.mkdir(logDir, { recursive: true });
  const path = logPath(logDir, name);
  const file = await Deno.open(path, { create: true, append: true });
  return { path, file };
}

/** Runs a command to completion; its output goes to the log, and a failure throws with the log's tail. */
export async function run(name: string, command: string, options: SpawnOptions): Promise<void> {
  const { path, file } = await openLog(options.logDir, name);
  const output = await new Deno.Command(command, {
    args: options.args,
    env: options.env,
    cwd: options.cwd,
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  await file.write(output.stdout);
  await file.write(output.stderr);
  file.close();
  if (!output.success) {
    throw new Error(`${name} failed (exit ${output.code}):\n${await tail(path)}`);
  }
}

/** Starts a long-running service (the supervisor watches it and restarts it when it dies). */
export async function spawn(name: string, command: string, options: SpawnOptions): Promise<Running> {
  const { file } = await openLog(options.logDir, name);
  // setsid: a terminal's Ctrl-C reaches only the orchestrator, which then stops the services in order.
  // setsid (and setpriv) exec the command, so the child's pid is the service's own.
  const process = new Deno.Command('setsid', {
    args: [command, ...options.args],
    env: options.env,
    cwd: options.cwd,
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
  // Each chunk is written as it comes, in order, so the log shows what the service printed so far (a file's
  // `writable` stream holds what it is given until it is closed: an hour's soak read its function log in bursts).
  // A chunk the log cannot take (a full disk) is dropped: the pipes are still read, so the service runs on.
  let written = Promise.resolve();
  const copy = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeTo(
      new WritableStream({
        write: (chunk) => (written = written.then(() => writeAll(file, chunk)).catch(() => {})),
      }),
    );
  const copied = Promise.all([copy(process.stdout), copy(process.stderr)])
    .finally(() => written.finally(() => file.close()))
    .catch(() => {});
  const exited = process.status.then(async (status) => {
    // Its last words reach the log before anyone reads it (a child it left may hold the pipes open: 1 s at most).
    await Promise.race([copied, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    return status.signal ? `signal ${status.signal}` : `code ${status.code}`;
  });
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  return {
    pid: process.pid,
    exited,
    stop: () => stopProcess(process.pid, stopSignal, exited),
  };
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
}

/** Signals `pid`, waits for `exited` and SIGKILLs it after 10 s. */
export async function stopProcess(pid: number, signal: Deno.Signal, exited: Promise<unknown>): Promise<void> {
  try {
    Deno.kill(pid, signal);
  } catch {
    return; // already gone
  }
  const timer = setTimeout(() => {
    try {
      Deno.kill(pid, 'SIGKILL');
    } catch { /* gone */ }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a service and waits until `ready` says it serves. A service that exits first, or is not ready in
 * time, is stopped and the start throws with the end of its log.
 */
export async function spawnReady(
  name: string,
  command: string,
  options: SpawnOptions,
  ready: { what: string; check: () => Promise<boolean>; intervalMs?: number },
): Promise<Running> {
  const running = await spawn(name, command, options);
  const exitedEarly = running.exited.then(async (how) => {
    throw new Error(`${name} exited while starting (${how}):\n${await tail(logPath(options.logDir, name), 8)}`);
  });
  try {
    await Promise.race([waitFor(ready.what, ready.check, undefined, ready.intervalMs), exitedEarly]);
  } catch (error) {
    await running.stop();
    throw error;
  }
  return running;
}

export function logPath(logDir: string, name: string): string {
  return join(logDir, `${name}.log`);
}

export async function tail(path: string, lines = 20): Promise<string> {
  const text = await Deno.readTextFile(path).catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).map((line) => `    ${line}`).join('\n');
}

/**
 * A port already taken is a clear error, not a hang, naming the variable that moves every port of the stack
 * (config.ts: STACK_PORT_SHIFT for `npm start`, STACK_TEST_PORT_SHIFT for `npm test`…).
 */
const reservedPortsFile = '/proc/sys/net/ipv4/ip_local_reserved_ports';

/**
 * Keeps the stack's ports out of Linux's ephemeral range for client connections (32768-60999), where a client's
 * socket could hold one first and make the server's bind fail at random. Root only (as CI runs); otherwise a
 * no-op, and a taken port is reported as such.
 */
export function reservePorts(ports: number[]): void {
  try {
    const current = Deno.readTextFileSync(reservedPortsFile).trim();
    const listed = new Set(current ? current.split(',') : []);
    const missing = ports.filter((port) => !listed.has(String(port)));
    if (missing.length > 0) Deno.writeTextFileSync(reservedPortsFile, [...listed, ...missing].join(','));
  } catch {
    // Not Linux, or not allowed: the ports stay as they are.
  }
}

export function assertPortFree(port: number, what: string, shiftVariable?: string): void {
  try {
    Deno.listen({ hostname: '127.0.0.1', port }).close();
  } catch {
    const move = shiftVariable
      ? ` or move every port of this stack: ${shiftVariable}=<number> puts each that far from supabase/config.toml's`
      : '';
    throw new Error(
      `port ${port} (${what}) is already in use on 127.0.0.1. Is another \`npm start\` (or another Supabase stack) ` +
        `running? Stop it, free the port,${move}.`,
    );
  }
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s`);
}

export function httpOk(url: string): () => Promise<boolean> {
  return async () => {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.ok;
  };
}
