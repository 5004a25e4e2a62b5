// Progress output of the local stack: one line per step, with its duration.

const started = performance.now();

export function info(message: string): void {
  console.log(`  ${message}`);
}

export function warn(message: string): void {
  console.warn(`! ${message}`);
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)}s`;
}

export async function step<T>(title: string, work: () => Promise<T>): Promise<T> {
  const begin = performance.now();
  console.log(`▸ ${title}`);
  const result = await work();
  console.log(`✓ ${title} (${seconds(begin)})`);
  return result;
}

export function elapsed(): string {
  return seconds(started);
}
