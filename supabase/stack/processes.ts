// Child processes of the local stack: started with their output sent to a log file, watched, and stopped
// in reverse order on exit. Also the readiness and free-port checks every service needs.
import { join } from 'node:path';
import { warn } from './log.ts';

interface Child {
  name: string;
  process: Deno.ChildProcess;
  stopSignal: Deno.Signal;
  logFile: string;
  expectedExit: boolean;
}

const children: Child[] = [];

export interface SpawnOptions {
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  logDir: string;
  /** Postgres shuts down fast on SIGINT; SIGTERM would wait for clients to disconnect. */
  stopSignal?: Deno.Signal;
}

async function openLog(logDir: string, name: string) {
  await Deno.mkdir(logDir, { recursive: true });
  const path = join(logDir, `${name}.log`);
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

/** Starts a long-running service. If it dies while the stack runs, the stack is stopped. */
export async function spawn(name: string, command: string, options: SpawnOptions): Promise<void> {
  const { path, file } = await openLog(options.logDir, name);
  // setsid: a terminal's Ctrl-C reaches only the orchestrator, which then stops the services in order.
  const process = new Deno.Command('setsid', {
    args: [command, ...options.args],
    env: options.env,
    cwd: options.cwd,
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
  const child: Child = { name, process, stopSignal: options.stopSignal ?? 'SIGTERM', logFile: path, expectedExit: false };
  children.push(child);
  const sink = file.writable.getWriter();
  const copy = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeTo(new WritableStream({ write: (chunk) => sink.write(chunk) }));
  Promise.all([copy(process.stdout), copy(process.stderr)]).finally(() => sink.close().catch(() => {}));
  process.status.then(async (status) => {
    if (child.expectedExit) return;
    warn(`${name} exited unexpectedly (code ${status.code}). Its log, ${path}, ends with:\n${await tail(path)}`);
    await stopAll();
    Deno.exit(1);
  });
}

export async function tail(path: string, lines = 20): Promise<string> {
  const text = await Deno.readTextFile(path).catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).map((line) => `    ${line}`).join('\n');
}

/** Stops every service, newest first, and waits for each to exit (SIGKILL after 10 s). */
export async function stopAll(): Promise<void> {
  while (children.length > 0) {
    const child = children.pop()!;
    child.expectedExit = true;
    try {
      child.process.kill(child.stopSignal);
    } catch {
      continue; // already gone
    }
    const timer = setTimeout(() => {
      try {
        child.process.kill('SIGKILL');
      } catch { /* gone */ }
    }, 10_000);
    await child.process.status;
    clearTimeout(timer);
  }
}

/** A port already taken is a clear error, not a hang. */
export function assertPortFree(port: number, what: string): void {
  try {
    Deno.listen({ hostname: '127.0.0.1', port }).close();
  } catch {
    throw new Error(
      `port ${port} (${what}) is already in use on 127.0.0.1. Is another \`npm start\` running? ` +
        `Stop it, or free the port.`,
    );
  }
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
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
