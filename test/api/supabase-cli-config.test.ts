// The Supabase CLI reads this checkout's supabase/config.toml in a fresh clone with nothing exported (issue 52):
// the pinned CLI from node_modules, run with a clean environment (PATH and an empty HOME only) in a copy of the
// repository's files as a clone has them (tracked or new, nothing .gitignore'd: no .local, no supabase/.temp, no
// .env). The commands here read the config before anything else, then connect to a database: given a local port
// that drops every connection, each must get as far as that connection and fail there, never at the config.
// supabase/.env.development gives the Send Email hook's variables their local values; exported ones still win, and
// with SUPABASE_ENV=production (the README's deploy) the file is not read: a hosted project's own values are the
// ones the CLI takes (shown with values the CLI refuses).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeholderHookSecret } from '../../functions/api/routes/send-email-hook.ts';
import { appWith } from '../helpers/app.ts';

const run = promisify(execFile);
// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();
const cli = join(repoRoot, 'node_modules', '.bin', 'supabase');
const configError = /Invalid hook config|failed to parse config|Missing required field/;

let clone: string;
let server: Server;
let dbUrl: string;

/** The CLI's output (stdout and stderr) for `args`, run in the clone with only PATH, HOME and `env` set. */
async function supabase(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await run(cli, args, {
    cwd: clone,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: join(clone, '.home'), ...env },
    timeout: 60_000,
  }).catch((error: { stdout: string; stderr: string }) => error);
  return `${result.stdout}\n${result.stderr}`;
}

beforeAll(async () => {
  clone = await mkdtemp(join(tmpdir(), 'fresh-clone-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const content = await readFile(join(repoRoot, file)).catch(() => undefined); // a file deleted, not committed
    if (content === undefined) continue;
    await mkdir(dirname(join(clone, file)), { recursive: true });
    await writeFile(join(clone, file), content);
  }
  await mkdir(join(clone, '.home'));
  // A "database" that hangs up on every connection: the commands fail there, deterministically and offline.
  server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dbUrl = `postgresql://postgres:postgres@127.0.0.1:${(server.address() as AddressInfo).port}/postgres`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (clone) await rm(clone, { recursive: true, force: true });
});

describe('the Supabase CLI in a fresh clone, nothing exported', () => {
  for (const command of [['db', 'advisors'], ['migration', 'list'], ['gen', 'types']]) {
    it(`supabase ${command.join(' ')} reads config.toml and gets as far as the database`, async () => {
      const output = await supabase([...command, '--db-url', dbUrl]);
      expect(output).not.toMatch(configError);
      expect(output).toContain('failed to connect to postgres');
    }, 70_000);
  }

  it('needs supabase/.env.development: without it the CLI stops at the hook, as issue 52 found', async () => {
    const file = join(clone, 'supabase', '.env.development');
    const kept = await readFile(file);
    await rm(file);
    try {
      const output = await supabase(['migration', 'list', '--db-url', dbUrl]);
      expect(output).toContain(
        'Invalid hook config: auth.hook.send_email.uri should be a HTTP, HTTPS, or pg-functions URI',
      );
    } finally {
      await writeFile(file, kept);
    }
  }, 70_000);

  it("holds the local stack's hook URI and the public placeholder secret the api function refuses", async () => {
    const text = await readFile(join(clone, 'supabase', '.env.development'), 'utf8');
    expect(text).toContain('\nSEND_EMAIL_HOOK_URI=http://127.0.0.1:54321/functions/v1/api/hooks/send_email\n');
    expect(text).toContain(`\nSEND_EMAIL_HOOK_SECRET=${placeholderHookSecret}\n`);
  });
});

describe("a hosted project's own hook settings win over .env.development", () => {
  it('exported: an exported URI is the one checked (here one the CLI refuses)', async () => {
    const output = await supabase(['migration', 'list', '--db-url', dbUrl], { SEND_EMAIL_HOOK_URI: 'ftp://x.test' });
    expect(output).toContain('auth.hook.send_email.uri should be a HTTP, HTTPS, or pg-functions URI');
  }, 70_000);

  it('exported: an exported secret is the one checked (here a malformed one)', async () => {
    const output = await supabase(['migration', 'list', '--db-url', dbUrl], {
      SEND_EMAIL_HOOK_URI: 'https://abcdefghijklmnopqrst.supabase.co/functions/v1/api/hooks/send_email',
      SEND_EMAIL_HOOK_SECRET: 'not-a-secret',
    });
    expect(output).toContain('auth.hook.send_email.secrets must be formatted as "v1,whsec_');
  }, 70_000);

  it('exported, well formed: taken, and the command goes on to the database', async () => {
    const output = await supabase(['migration', 'list', '--db-url', dbUrl], {
      SEND_EMAIL_HOOK_URI: 'https://abcdefghijklmnopqrst.supabase.co/functions/v1/api/hooks/send_email',
      SEND_EMAIL_HOOK_SECRET: `v1,whsec_${Buffer.from('a hosted project secret of 32 bytes').toString('base64')}`,
    });
    expect(output).not.toMatch(configError);
    expect(output).toContain('failed to connect to postgres');
  }, 70_000);

  it('in supabase/.env.local (never committed): read before .env.development', async () => {
    const file = join(clone, 'supabase', '.env.local');
    await writeFile(file, 'SEND_EMAIL_HOOK_URI=ftp://x.test\n');
    try {
      const output = await supabase(['migration', 'list', '--db-url', dbUrl]);
      expect(output).toContain('auth.hook.send_email.uri should be a HTTP, HTTPS, or pg-functions URI');
    } finally {
      await rm(file);
    }
  }, 70_000);

  it('with SUPABASE_ENV=production, .env.development is not read: unset variables stop the CLI', async () => {
    const output = await supabase(['migration', 'list', '--db-url', dbUrl], { SUPABASE_ENV: 'production' });
    expect(output).toContain('auth.hook.send_email.uri should be a HTTP, HTTPS, or pg-functions URI');
  }, 70_000);

  it('with SUPABASE_ENV=production, supabase/.env (never committed) gives them', async () => {
    const file = join(clone, 'supabase', '.env');
    await writeFile(file, 'SEND_EMAIL_HOOK_URI=ftp://x.test\n');
    try {
      const refused = await supabase(['migration', 'list', '--db-url', dbUrl], { SUPABASE_ENV: 'production' });
      expect(refused).toContain('auth.hook.send_email.uri should be a HTTP, HTTPS, or pg-functions URI');
      await writeFile(
        file,
        'SEND_EMAIL_HOOK_URI=https://abcdefghijklmnopqrst.supabase.co/functions/v1/api/hooks/send_email\n' +
          `SEND_EMAIL_HOOK_SECRET=v1,whsec_${Buffer.from('a hosted project secret of 32 bytes').toString('base64')}\n`,
      );
      const taken = await supabase(['migration', 'list', '--db-url', dbUrl], { SUPABASE_ENV: 'production' });
      expect(taken).not.toMatch(configError);
      expect(taken).toContain('failed to connect to postgres');
    } finally {
      await rm(file);
    }
  }, 70_000);
});

describe("the api function's Send Email hook and the placeholder secret", () => {
  /** The hook's answer to a call signed with `signedWith`, from a facade whose secret is `secret`. */
  async function hookAnswer(secret: string, signedWith: string): Promise<number> {
    // An e-mail kind with no template: a call whose signature passes is answered 200 with Auth's error shape,
    // and nothing is sent.
    const payload = JSON.stringify({
      user: { id: crypto.randomUUID(), email: 'nobody@example.test' },
      email_data: { email_action_type: 'no_such_kind', token: '123456' },
    });
    const id = `msg_${crypto.randomUUID()}`;
    const timestamp = new Date();
    const answer = await appWith({ SEND_EMAIL_HOOK_SECRET: secret }).request('/api/hooks/send_email', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': new Webhook(signedWith.replace(/^v1,whsec_/, '')).sign(id, timestamp, payload),
      },
      body: payload,
    });
    await answer.body?.cancel();
    return answer.status;
  }

  it('refuses a call signed with the public placeholder, even when it is set as its secret', async () => {
    expect(await hookAnswer(placeholderHookSecret, placeholderHookSecret)).toBe(401);
  });

  it('takes a call signed with a secret of its own', async () => {
    const own = `v1,whsec_${Buffer.from('a hosted project secret of 32 bytes').toString('base64')}`;
    expect(await hookAnswer(own, own)).toBe(200);
    expect(await hookAnswer(own, placeholderHookSecret)).toBe(401);
  });
});
