// The primary's CPU per write: what Postgres's processes spend in the middle half of a load run, divided by the
// writes the run made meanwhile (its rate times the window). The middle half leaves out connecting and the last
// stragglers; the processes of a pgbench run live only as long as it, so they are read while they run.
import { cpuByProcess } from './cpu.ts';
import type { Load } from './load.ts';

/**
 * `run` (a load of `seconds` after `warmUp` seconds its figures leave out) and the primary's CPU µs per write it
 * made (NaN when it measured no rate).
 */
export async function withPrimaryCpu(
  seconds: number,
  run: () => Promise<Load>,
  warmUp = 0,
): Promise<{ load: Load; cpuPerWrite: number }> {
  const window = seconds / 2;
  const running = run();
  await sleep(warmUp + seconds / 4);
  const before = cpuByProcess('postgres');
  await sleep(window);
  const after = cpuByProcess('postgres');
  const load = await running;
  let spent = 0;
  // A process that began within the window counts whole; one that ended in it is missed (none should: the load's
  // connections last the run).
  for (const [pid, cpu] of after) spent += cpu - (before.get(pid) ?? 0);
  return { load, cpuPerWrite: (spent * 1e6) / (load.perSecond * window) };
}

function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}
