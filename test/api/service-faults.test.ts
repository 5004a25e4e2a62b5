// The facade when Supabase Auth or the mail server fails: data routes go on with the tokens they can verify
// alone, the routes that need Auth or mail say which is down, and nothing pretends an e-mail went out.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { appWith, unreachable } from '../helpers/app.ts';
import { facadeLog, whilePaused } from '../helpers/faults.ts';
import { api, authFrom } from '../helpers/http.ts';
import { mailsTo } from '../helpers/mailpit.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

/** Supabase Auth's own port in the test stack: the gateway's plus 5 (supabase/stack/config.ts). */
const authPort = Number(new URL(stack.apiUrl).port) + 5;
/** Mailpit's SMTP port: its API's plus 1. */
const smtpPort = Number(new URL(stack.mailpitUrl).port) + 1;

describe.skipIf(!authIsRunning)('Supabase Auth down', () => {
  it('leaves data routes working with a valid token, and answers /auth routes 503 auth_unavailable', async () => {
    const reader = await createAccount('reader');
    // A facade that fetched Auth's keys itself (no SUPABASE_JWKS) verifies with the keys it keeps.
    const fetchingKeys = appWith({});
    const before = await fetchingKeys.request('/api/auth/user', {
      headers: { Authorization: `Bearer ${reader.accessToken}` },
    });
    expect(before.status).toBe(200);
    await whilePaused(authPort, async () => {
      const profile = await api('GET', `/${reader.username}`, { token: reader.accessToken });
      expect([profile.status, profile.body.username]).toEqual([200, reader.username]);
      const own = await fetchingKeys.request('/api/auth/user', {
        headers: { Authorization: `Bearer ${reader.accessToken}` },
      });
      expect(own.status).toBe(200);
      const login = await api('POST', '/auth/login', { json: { login: reader.username, password: 'whatever it is' } });
      expect([login.status, login.body.error.code]).toEqual([503, 'auth_unavailable']);
      expect(login.body.error.message).toMatch(/authentication service/);
      const health = await api('GET', '/health');
      expect([health.status, health.body.auth, health.body.database]).toEqual([503, 'down', 'up']);
    });
  }, 30_000);
});

describe('the mail server down', () => {
  const noMail = appWith({ SMTP_SERVER: '127.0.0.1:9' });
  const post = (path: string, body: unknown) =>
    noMail.request(`/api${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.skipIf(!authIsRunning)(
    'answers every request for a code e-mail 503 mail_unavailable, never a false "we sent a code"',
    async () => {
      const known = await createAccount('known');
      for (
        const [path, body] of [
          ['/auth/forget_password', { email: known.email }],
          ['/auth/forget_password', { email: uniqueEmail('nobody') }],
          ['/auth/resend_code', { email: known.email, type: 'recovery' }],
          ['/auth/register', {
            username: `new_${Date.now().toString(36)}`,
            email: uniqueEmail('new'),
            password: 'correct horse battery',
          }],
        ] as const
      ) {
        const response = await post(path, body);
        const { error } = await response.json() as { error: { code: string } };
        expect([path, response.status, error.code, response.headers.get('retry-after')])
          .toEqual([path, 503, 'mail_unavailable', '30']);
      }
    },
  );

  it.skipIf(!authIsRunning)(
    'that hangs (Mailpit paused) refuses a registration with 503 mail_unavailable and creates nothing',
    async () => {
      const email = uniqueEmail('hung');
      const response = await whilePaused(smtpPort, () =>
        api('POST', '/auth/register', {
          json: { username: `hung_${Date.now().toString(36)}`, email, password: 'correct horse battery' },
        }));
      expect([response.status, response.body.error.code]).toEqual([503, 'mail_unavailable']);
      const [{ accounts }] = await asRoot`select count(*)::int as accounts from auth.users where email = ${email}`;
      expect(accounts).toBe(0);
    },
  );

  it.skipIf(!authIsRunning)(
    "makes Auth's own code requests answer 500 and send nothing; the account may ask again at once",
    async () => {
      const member = await createAccount('unlucky');
      // Mailpit paused: the Send Email hook connects but is never greeted, gives up, and gives the slot back.
      const during = await whilePaused(
        smtpPort,
        () => authFrom('127.0.0.60', 'POST', '/recover', { email: member.email }),
      );
      expect([during.status, during.body.msg]).toEqual([500, 'Error sending e-mail: the mail server is unavailable']);
      expect(await mailsTo(member.email)).toEqual([]);
      const after = await authFrom('127.0.0.60', 'POST', '/recover', { email: member.email });
      expect(after.status).toBe(200);
      expect((await mailsTo(member.email)).map((mail) => mail.subject)).toEqual(['Your DayKeeper password reset code']);
    },
  );

  it('is reported by /health', async () => {
    const response = await noMail.request('/api/health');
    expect(await response.json()).toMatchObject({ mail: 'down' });
    const up = await api('GET', '/health');
    expect(up.body.mail).toBe('up');
  });
});

describe('a client that goes away mid-body', () => {
  it('is no error of the facade: nothing is logged', async () => {
    const url = new URL(`${stack.functionsUrl}/auth/login`);
    const logged = facadeLog().length;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"log`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(facadeLog().slice(logged)).not.toMatch(/unexpected error|BadResource/);
  });
});

describe('a database that cannot be reached', () => {
  it('is answered 503 database_unavailable with Retry-After', async () => {
    const app = appWith({
      SUPABASE_URL: unreachable,
      SUPABASE_DB_URL: 'postgres://authenticator:x@127.0.0.1:9/postgres',
    });
    const response = await app.request('/api/someone');
    const { error } = await response.json() as { error: { code: string } };
    expect([response.status, error.code, response.headers.get('retry-after')])
      .toEqual([503, 'database_unavailable', '1']);
  });
});
