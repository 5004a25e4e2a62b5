// Where a request's CPU time goes, and the facade with Postgres on a core of its own (step 11 of the scale
// benchmark). On shared cores whatever the function, the gateway and the pooler spend on a request is taken
// from Postgres; the CPU time of each process per request says how much, whatever else the machine runs.
// Linux only: /proc gives each process's CPU time, taskset (util-linux) the cores a process may run on.
import { pidOf } from '../stack/supervisor.ts';

/** The stack's processes a request passes through, by their names under the supervisor. */
const parts = ['postgres', 'functions', 'gateway', 'pgbouncer'] as const;
type Part = typeof parts[number];
/** CPU seconds of each part (Postgres: the server and all its processes) and of the whole machine. */
export type CpuTime = Record<Part | 'machine', number>;

/** /proc counts CPU time in USER_HZ ticks, 100 a second on every Linux architecture the stack runs on. */
const ticksPerSecond = 100;

/** pid → [parent pid, CPU seconds (user + system, all threads)] of every process. */
function processTable(): Map<number, [number, number]> {
  const table = new Map<number, [number, number]>();
  for (const entry of Deno.readDirSync('/proc')) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // Fields after the command name, which may hold spaces: state, ppid, … utime (12th), stime (13th).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry.name), [Number(fields[1]), (Number(fields[11]) + Number(fields[12])) / ticksPerSecond]);
    } catch {
      // The process ended while the table was read.
    }
  }
  return table;
}

/** `pid` and every process below it. */
function family(table: Map<number, [number, number]>, pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    for (const [child, [parent]] of table) if (parent === found[i]) found.push(child);
  }
  return found.filter((p) => table.has(p));
}

function machineBusySeconds(): number {
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = Deno.readTextFileSync('/proc/stat').split('\n')[0].trim().split(
    /\s+/,
  ).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / ticksPerSecond;
}

/** CPU seconds so far of the stack's process `name` (as the supervisor names it) and every process below it. */
export function cpuSecondsOf(name: string): number {
  const pid = pidOf(name);
  if (!pid) throw new Error(`the stack runs no ${name}`);
  const table = processTable();
  return family(table, pid).reduce((sum, p) => sum + table.get(p)![1], 0);
}

/** The CPU seconds so far of each process of the stack's `name` (as the supervisor names it) and below it. */
export function cpuByProcess(name: string, table = processTable()): Map<number, number> {
  const pid = pidOf(name);
  return new Map(pid ? family(table, pid).map((p) => [p, table.get(p)![1]]) : []);
}

/** Each part's processes (as of now) with their CPU seconds so far, and the machine's. */
function snapshot(): { parts: Map<Part, Map<number, number>>; machine: number } {
  const table = processTable();
  const byPart = new Map<Part, Map<number, number>>();
  for (const part of parts) byPart.set(part, cpuByProcess(part, table));
  return { parts: byPart, machine: machineBusySeconds() };
}

/**
 * The CPU time `work` cost each part: what their processes at its end spent since its start (a process that
 * began meanwhile counts whole; one that ended meanwhile, such as a pgbench client's server process, is
 * missed, but counts in the machine's total).
 */
export async function withCpuTime<T>(work: () => Promise<T>): Promise<{ value: T; cpu: CpuTime }> {
  const before = snapshot();
  const value = await work();
  const after = snapshot();
  const cpu = { machine: after.machine - before.machine } as CpuTime;
  for (const part of parts) {
    let spent = 0;
    for (const [pid, seconds] of after.parts.get(part)!) spent += seconds - (before.parts.get(part)!.get(pid) ?? 0);
    cpu[part] = spent;
  }
  return { value, cpu };
}

async function setCores(pids: number[], mask: string): Promise<void> {
  // A process that ended in between fails, of no interest.
  await Promise.all(
    pids.map((pid) =>
      new Deno.Command('taskset', { args: ['-a', '-p', mask, String(pid)], stdout: 'null', stderr: 'null' }).output()
    ),
  );
}

/**
 * Runs `work` with Postgres alone on the first core and every other process of the stack, and this one (whose
 * load generators inherit it), on the others: the layout of a hosted project, where the function and the
 * gateway run on other machines than the database. Undefined on a machine of one core.
 */
export async function onCoresApart<T>(work: () => Promise<T>): Promise<T | undefined> {
  const cores = navigator.hardwareConcurrency;
  if (cores < 2) return undefined;
  const all = ((1n << BigInt(cores)) - 1n).toString(16);
  const rest = ((1n << BigInt(cores)) - 2n).toString(16);
  const postgres = () => {
    const pid = pidOf('postgres');
    return pid ? family(processTable(), pid) : [];
  };
  const others = ['functions', 'gateway', 'pgbouncer', 'postgrest', 'auth', 'mailpit'].map(pidOf)
    .filter((pid): pid is number => pid !== undefined).concat(Deno.pid);
  try {
    // New server processes are forked by the postmaster and keep its cores.
    await setCores(postgres(), '1');
    await setCores(others, rest);
    return await work();
  } finally {
    await setCores([...postgres(), ...others], all);
  }
}
