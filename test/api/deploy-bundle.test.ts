// Deployable as written: the api function served from a copy holding only what `supabase functions deploy api`
// uploads (supabase/tools/function-bundle.ts: the import map, static_files and the entrypoint's local modules),
// started with the stack's command line but allowed to read nothing outside the copy. /health, /openapi.json and
// /docs with Swagger UI's script and styles answer from there, and a static file missing from the upload fails.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facadeArgs, facadeFlags } from '../../supabase/stack/facade-command.ts';
import { authIsRunning } from '../helpers/stack.ts';

const repoRoot = process.cwd();
const deno = join(repoRoot, 'node_modules', '.bin', 'deno');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

async function waitForAnswer(url: string, process: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (process.exitCode !== null) throw new Error(`the function exited (${process.exitCode}) before answering`);
    try {
      await (await fetch(url)).body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no answer from ${url} within 60 s`);
}

describe('the api function served from its upload alone', () => {
  let copy: string;
  let fn: ChildProcess;
  let base: string;
  let log = '';

  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'api-upload-'));
    await promisify(execFile)(deno, [
      'run',
      '--allow-read',
      '--allow-run',
      '--allow-write',
      '--allow-env',
      'supabase/tools/function-bundle.ts',
      'copy',
      copy,
    ], { cwd: repoRoot });
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api`;
    // The stack's flags, but reading only inside the copy: a file the upload lacks cannot be read from the repository.
    const flags = facadeFlags.map((flag) => flag === '--allow-read' ? `--allow-read=${copy}` : flag);
    fn = spawn(deno, facadeArgs(join(copy, 'functions', 'api'), flags), {
      cwd: copy,
      env: { ...process.env, ...JSON.parse(process.env.STACK_FUNCTION_ENV!), PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fn.stdout!.on('data', (chunk) => log += chunk);
    fn.stderr!.on('data', (chunk) => log += chunk);
    await waitForAnswer(`${base}/health`, fn);
  }, 90_000);

  afterAll(() => {
    fn?.kill('SIGTERM');
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("holds the entrypoint, the import map, the templates and Swagger UI's two files, and no package folder", () => {
    for (
      const file of [
        'functions/api/index.ts',
        'functions/api/deno.json',
        'functions/api/templates/confirmation.html',
        'node_modules/swagger-ui-dist/swagger-ui.css',
        'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
      ]
    ) {
      expect(() => readFileSync(join(copy, file)), file).not.toThrow();
    }
    expect(() => readFileSync(join(copy, 'node_modules/swagger-ui-dist/package.json'))).toThrow();
    expect(() => readFileSync(join(copy, 'client/index.ts'))).toThrow();
  });

  it.skipIf(!authIsRunning)('answers /health with every service up', async () => {
    const response = await fetch(`${base}/health`);
    // Not `replicas`: a fresh process has yet to measure the replica's lag, and says `down` until it has.
    expect(await response.json()).toMatchObject({ status: 'ok', database: 'up', auth: 'up', rest: 'up', mail: 'up' });
    expect(response.status).toBe(200);
  });

  it('answers /openapi.json with the document', async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json() as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/api/health');
  });

  it("cannot serve Swagger UI's styles once they are missing from the upload, and serves them once back", async () => {
    const css = join(copy, 'node_modules/swagger-ui-dist/swagger-ui.css');
    rmSync(css);
    expect((await fetch(`${base}/docs/swagger-ui-dist/swagger-ui.css`)).status).toBe(500);
    cpSync(join(repoRoot, 'node_modules/swagger-ui-dist/swagger-ui.css'), css);
    expect((await fetch(`${base}/docs/swagger-ui-dist/swagger-ui.css`)).status).toBe(200);
  });

  it("answers /docs and serves Swagger UI's script and styles from the upload's static files", async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('docs/swagger-ui-dist/swagger-ui-bundle.js');
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const response = await fetch(`${base}/docs/swagger-ui-dist/${file}`);
      expect(response.status, log).toBe(200);
      expect(await response.text()).toBe(readFileSync(join(repoRoot, 'node_modules/swagger-ui-dist', file), 'utf8'));
    }
  });
});
