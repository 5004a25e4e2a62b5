// The /auth paths and the account paths over HTTP, against the real Supabase Auth and Mailpit.
import { importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAccount, makeAdmin, uniqueUsername } from '../helpers/accounts.ts';
import { appWith } from '../helpers/app.ts';
import { asRoot, backdate, rpc } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { latestCode, mailCount } from '../helpers/mailpit.ts';
import { registerAndConfirm, withoutRequestId } from '../helpers/registration.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword, uniqueEmail } from '../helpers/users.ts';
import { waitOutMailInterval } from '../helpers/reset-codes.ts';

const auth = describe.skipIf(!authIsRunning);

/**
 * As if a minute had passed since the account last asked for a new e-mail (private.take_email_change_slot) and was
 * sent its codes (private.take_mail_slot).
 */
async function aMinuteLater(userId: string, newAddress?: string): Promise<void> {
  await asRoot`update private.code_mails set sent_at = sent_at - interval '61 seconds'
    where user_id = ${userId} and kind in ('email_change_request', 'email_change')`;
  // The new address's own minute, whichever account asked (private.take_mail_slot).
  if (newAddress) {
    await asRoot`update private.recipient_mails set sent_at = sent_at - interval '61 seconds'
      where recipient = lower(${newAddress})`;
  }
}

auth('POST /auth/register and /auth/confirm_email', () => {
  it('registers, e-mails a 6-digit code, and confirms it into a session with the chosen profile', async () => {
    const username = uniqueUsername('Jane.Doe');
    const email = uniqueEmail('jane');
    const registered = await api('POST', '/auth/register', {
      json: {
        username: username.toUpperCase(),
        email,
        password: defaultPassword,
        display_name: 'Jane',
        time_zone: 'Europe/Paris',
      },
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({ confirmation_required: true, email });
    const wrong = await api('POST', '/auth/confirm_email', { json: { email, code: '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_code');
    const confirmed = await api('POST', '/auth/confirm_email', { json: { email, code: await latestCode(email) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.profile).toMatchObject({
      username: username.toLowerCase(),
      display_name: 'Jane',
      time_zone: 'Europe/Paris',
      email,
    });
    expect(confirmed.body.session).toMatchObject({
      token_type: 'bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
  });

  it('refuses a taken username (409), a reserved or malformed one, a weak password and a bad time zone (400)', async () => {
    const taken = await registerAndConfirm('taken');
    const cases: [Record<string, unknown>, number, string][] = [
      [{ username: taken.username.toUpperCase() }, 409, 'username_taken'],
      [{ username: 'admin' }, 400, 'username_reserved'],
      [{ username: 'no spaces' }, 400, 'validation_failed'],
      [{ username: 'ab' }, 400, 'validation_failed'],
      [{ password: 'short' }, 400, 'validation_failed'],
      [{ password: 'x'.repeat(73) }, 400, 'validation_failed'],
      [{ time_zone: 'Mars/Olympus' }, 400, 'invalid_time_zone'],
      [{ time_zone: 'XYZ-167' }, 400, 'invalid_time_zone'],
      [{ display_name: 'x'.repeat(51) }, 400, 'validation_failed'],
      [{ display_name: 'admin\u202Enimda' }, 400, 'validation_failed'],
      [{ display_name: 'two\nlines' }, 400, 'validation_failed'],
      [{ email: 'not-an-email' }, 400, 'validation_failed'],
    ];
    for (const [override, status, code] of cases) {
      const response = await api('POST', '/auth/register', {
        json: { username: uniqueUsername('new'), email: uniqueEmail('new'), password: defaultPassword, ...override },
      });
      expect([override, response.status, response.body.error?.code]).toEqual([override, status, code]);
    }
  });

  it('answers malformed JSON, wrong types and missing fields with 400 and changes nothing', async () => {
    const malformed = await api('POST', '/auth/register', {
      body: '{"username": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('malformed_json');
    const wrongType = await api('POST', '/auth/register', { json: { username: 42, email: [], password: true } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'email',
      'password',
      'username',
    ]);
    const missing = await api('POST', '/auth/login', { json: {} });
    expect(missing.status).toBe(400);
  });

  it('refuses to register an address that awaits confirmation, and e-mails its owner a code to take it over', async () => {
    const email = uniqueEmail('pending');
    const squatter = { username: uniqueUsername('squatter'), email, password: 'squatter chosen password' };
    expect((await api('POST', '/auth/register', { json: squatter })).status).toBe(201);
    const since = new Date();
    const owner = await api('POST', '/auth/register', {
      json: { username: uniqueUsername('owner'), email, password: defaultPassword },
    });
    expect([owner.status, owner.body.error.code]).toEqual([409, 'email_pending_confirmation']);

    // The code in the owner's mailbox resets the password: the squatter's no longer opens the account.
    const reset = await api('POST', '/auth/reset_password', {
      json: { email, code: await latestCode(email, since), password: defaultPassword },
    });
    expect(reset.status).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: email, password: squatter.password } })).status).toBe(
      401,
    );
    expect((await api('POST', '/auth/login', { json: { login: email, password: defaultPassword } })).status).toBe(200);
  });

  it('removes a sign-up never confirmed 7 days later, at a later sign-up; a confirmed account stays', async () => {
    const stale = uniqueEmail('stale');
    const signUp = (email: string) =>
      authClient().signUp({ email, password: defaultPassword, options: { data: { username: uniqueUsername('s') } } });
    expect((await signUp(stale)).error).toBeNull();
    const confirmed = await createAccount('kept');
    const aged = await backdate(
      'public.profiles p',
      `created_at = now() - interval '8 days'`,
      'p.id in (select u.id from auth.users u where u.email in ($1, $2))',
      stale,
      confirmed.email,
    );
    expect(aged).toBe(2);
    expect((await signUp(uniqueEmail('later'))).error).toBeNull();
    expect(await asRoot`select 1 from auth.users where email = ${stale}`).toHaveLength(0);
    expect(await asRoot`select 1 from auth.users where id = ${confirmed.id}`).toHaveLength(1);
    // The address is free again.
    const again = await api('POST', '/auth/register', {
      json: { username: uniqueUsername('back'), email: stale, password: defaultPassword },
    });
    expect(again.status).toBe(201);
  });

  it('refuses the e-mail of a deleted banned account', async () => {
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    const banned = await createAccount('banned');
    await rpc(admin, 'admin_ban_user', { p_username: banned.username, p_reason: 'spam' });
    await rpc(admin, 'admin_delete_banned_user', { p_username: banned.username });
    const again = await api('POST', '/auth/register', {
      json: { username: uniqueUsername('back'), email: banned.email, password: defaultPassword },
    });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('email_banned');

    // Nor can an existing account move to it, through the facade or straight through Auth; the facade answers
    // as it answers a free address, so the answer tells nothing of whose an address is.
    const member = await registerAndConfirm('mover');
    const token = member.session.access_token;
    const moved = await api('PUT', '/user', {
      token,
      json: { email: banned.email.toUpperCase(), current_password: member.password, bio: 'moved' },
    });
    expect([moved.status, moved.body]).toEqual([
      200,
      expect.objectContaining({ email_change_pending: true, profile: expect.objectContaining({ bio: 'moved' }) }),
    ]);
    const direct = await fetch(`${stack.apiUrl}/auth/v1/user`, {
      method: 'PUT',
      headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: banned.email }),
    });
    expect(direct.ok).toBe(false);
    const [row] = await asRoot`select email, email_change from auth.users u where id = ${member.userId}`;
    expect(row).toEqual({ email: member.email, email_change: '' });

    // With a single database connection too: the refused change gives its answer back, it does not wait on itself.
    const tiny = appWith({ DB_POOL_MAX: '1' });
    const other = await registerAndConfirm('other');
    for (const address of [banned.email, other.email]) {
      await aMinuteLater(member.userId, address);
      const response = await tiny.request('/api/user', {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: address, current_password: member.password }),
      });
      expect([address, response.status]).toEqual([address, 200]);
    }
  });

  it('answers an e-mail change to a registered address as one to a free address, in status and time, and sends that address nothing', async () => {
    const member = await registerAndConfirm('prober');
    const token = member.session.access_token;
    const registered = await registerAndConfirm('target');
    const unconfirmed = uniqueEmail('unconfirmed');
    expect(
      (await api('POST', '/auth/register', {
        json: { username: uniqueUsername('pending'), email: unconfirmed, password: defaultPassword },
      })).status,
    ).toBe(201);
    const mailBefore = await mailCount(registered.email, 0);
    const ask = async (email: string) => {
      const started = performance.now();
      const answer = await api('PUT', '/user', { token, json: { email, current_password: member.password } });
      const error = answer.body?.error;
      return {
        status: answer.status,
        keys: Object.keys(answer.body ?? {}).sort(),
        pending: answer.body?.email_change_pending,
        code: error?.code,
        retryAfter: answer.headers.get('Retry-After') === null ? null : 'a number',
        slow: performance.now() - started >= 990,
      };
    };
    const free = await ask(uniqueEmail('free'));
    expect(free).toMatchObject({ status: 200, pending: true, slow: true });
    for (const address of [registered.email, unconfirmed, registered.email.toUpperCase()]) {
      await aMinuteLater(member.userId);
      expect([address, await ask(address)]).toEqual([address, free]);
    }
    // A second address within the minute is refused alike, whichever of the two is registered (Auth, left to
    // itself, refuses the free one by its max_frequency and lets the registered one through).
    await aMinuteLater(member.userId);
    expect(await ask(uniqueEmail('free'))).toEqual(free);
    const tooSoon = await ask(registered.email);
    expect(tooSoon).toEqual({
      status: 429,
      keys: ['error'],
      pending: undefined,
      code: 'too_many_email_changes',
      retryAfter: 'a number',
      slow: true,
    });
    await aMinuteLater(member.userId);
    expect(await ask(registered.email)).toEqual(free);
    expect(await ask(uniqueEmail('free'))).toEqual(tooSoon);
    expect(await mailCount(registered.email)).toBe(mailBefore);
    // The account's own address stays as it was, and it can still move to a free one.
    const [row] = await asRoot`select email from auth.users where id = ${member.userId}`;
    expect(row.email).toBe(member.email);
  });
});

auth('POST /auth/login', () => {
  it('signs in by username or by e-mail', async () => {
    const member = await registerAndConfirm('member');
    for (const login of [member.username, member.email]) {
      const response = await api('POST', '/auth/login', { json: { login, password: member.password } });
      expect(response.status).toBe(200);
      expect(response.body.profile.username).toBe(member.username);
    }
  });

  it('gives one identical answer for an unknown user and a wrong password', async () => {
    const member = await registerAndConfirm('member');
    const wrongPassword = await api('POST', '/auth/login', {
      json: { login: member.username, password: 'wrong password' },
    });
    const unknownUser = await api('POST', '/auth/login', {
      json: { login: 'nobody_at_all', password: 'wrong password' },
    });
    const unknownEmail = await api('POST', '/auth/login', {
      json: { login: 'nobody@example.test', password: 'wrong password' },
    });
    expect(wrongPassword.status).toBe(401);
    expect(withoutRequestId(unknownUser)).toEqual(withoutRequestId(wrongPassword));
    expect(withoutRequestId(unknownEmail)).toEqual(withoutRequestId(wrongPassword));
  });

  it('takes as long to refuse an unknown account as a wrong password (at least 400 ms each)', async () => {
    const member = await registerAndConfirm('member');
    for (const login of ['nobody_at_all', 'nobody@example.test', member.username]) {
      const started = performance.now();
      const response = await api('POST', '/auth/login', { json: { login, password: 'wrong password' } });
      expect([login, response.status, performance.now() - started >= 395]).toEqual([login, 401, true]);
    }
  });

  it('lets Auth rate-limit the real client: forged X-Forwarded-For and Sb-Forwarded-For are replaced', async () => {
    const member = await registerAndConfirm('member');
    const credentials = { login: member.username, password: member.password };
    const forged = { 'X-Forwarded-For': '203.0.113.9', 'Sb-Forwarded-For': '203.0.113.9' };
    expect((await api('POST', '/auth/login', { json: credentials, headers: forged })).status).toBe(200);
    const direct = await fetch(`${stack.apiUrl}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { ...forged, apikey: stack.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: member.email, password: member.password }),
    });
    expect(direct.status).toBe(200);
    // The facade behind a platform gateway forwards the address that gateway appended last.
    const behindGateway = await appWith({}).request('/api/auth/login', {
      method: 'POST',
      headers: { 'X-Forwarded-For': '203.0.113.9, 198.51.100.7', 'Content-Type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    expect(behindGateway.status).toBe(200);
    // Auth records, with each session, the client address it rate-limited.
    const sessions =
      await asRoot`select host(ip) as ip from auth.sessions where user_id = ${member.userId} order by created_at`;
    expect(sessions.map((row) => row.ip).slice(-3)).toEqual(['127.0.0.1', '127.0.0.1', '198.51.100.7']);
  });

  it('tells an unconfirmed account to confirm its e-mail', async () => {
    const username = uniqueUsername('pending');
    const email = uniqueEmail('pending');
    await api('POST', '/auth/register', { json: { username, email, password: defaultPassword } });
    const response = await api('POST', '/auth/login', { json: { login: username, password: defaultPassword } });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('email_not_confirmed');
  });
});

auth('POST /auth/refresh', () => {
  it('rotates the refresh token; a used one is refused once the reuse window has passed', async () => {
    const member = await registerAndConfirm('member');
    const first = await api('POST', '/auth/refresh', { json: { refresh_token: member.session.refresh_token } });
    expect(first.status).toBe(200);
    expect(first.body.session.refresh_token).not.toBe(member.session.refresh_token);
    await new Promise((resolve) => setTimeout(resolve, 11_000)); // refresh_token_reuse_interval is 10 s
    // Auth lets the parent of the active token be retried (a client that lost the answer); one step later it may not.
    const second = await api('POST', '/auth/refresh', { json: { refresh_token: first.body.session.refresh_token } });
    expect(second.status).toBe(200);
    const reused = await api('POST', '/auth/refresh', { json: { refresh_token: member.session.refresh_token } });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('invalid_refresh_token');
    const garbage = await api('POST', '/auth/refresh', { json: { refresh_token: 'nonsense' } });
    expect(garbage.status).toBe(401);
  }, 30_000);
});

auth('password recovery', () => {
  it('answers forget_password, resend_code and login_code identically for known and unknown addresses', async () => {
    const member = await registerAndConfirm('member');
    for (const path of ['/auth/forget_password', '/auth/resend_code', '/auth/login_code']) {
      const known = await api('POST', path, { json: { email: member.email } });
      const unknown = await api('POST', path, { json: { email: uniqueEmail('ghost') } });
      expect(known.status).toBe(200);
      expect(unknown.body).toEqual(known.body);
    }
  });

  it('signs in with an e-mailed code, once; a wrong or used code and an unknown address get one answer', async () => {
    const member = await registerAndConfirm('coded');
    const since = new Date();
    const asked = await api('POST', '/auth/login_code', { json: { email: member.email } });
    expect(asked.status).toBe(200);
    const code = await latestCode(member.email, since);
    const wrong = await api('POST', '/auth/login_with_code', {
      json: { email: member.email, code: code === '000000' ? '111111' : '000000' },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'invalid_code']);
    const signedIn = await api('POST', '/auth/login_with_code', { json: { email: member.email, code } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.profile.username).toBe(member.username);
    expect((await api('GET', '/auth/user', { token: signedIn.body.session.access_token })).status).toBe(200);
    // The password still works, and the code works once.
    expect((await api('POST', '/auth/login', { json: { login: member.username, password: member.password } })).status)
      .toBe(200);
    const reused = await api('POST', '/auth/login_with_code', { json: { email: member.email, code } });
    const ghost = await api('POST', '/auth/login_with_code', { json: { email: uniqueEmail('ghost'), code } });
    expect(withoutRequestId(reused)).toEqual(withoutRequestId(wrong));
    expect(withoutRequestId(ghost)).toEqual(withoutRequestId(wrong));
    // One sign-in code e-mail a minute per account: the second ask is answered alike, and nothing is sent.
    const before = await mailCount(member.email);
    expect((await api('POST', '/auth/login_code', { json: { email: member.email } })).body).toEqual(asked.body);
    expect(await mailCount(member.email) - before).toBe(0);
  });

  it('resets the password with the code and signs out every other session', async () => {
    const member = await registerAndConfirm('member');
    const since = new Date();
    await api('POST', '/auth/forget_password', { json: { email: member.email } });
    const code = await latestCode(member.email, since);
    const weak = await api('POST', '/auth/reset_password', { json: { email: member.email, code, password: 'short' } });
    expect(weak.status).toBe(400);
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: member.email, code, password: 'a brand new secret' },
    });
    expect(reset.status).toBe(200);
    expect((await api('GET', '/auth/user', { token: member.session.access_token })).status).toBe(401);
    expect((await api('GET', '/auth/user', { token: reset.body.session.access_token })).status).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: member.username, password: member.password } })).status)
      .toBe(401);
    expect(
      (await api('POST', '/auth/login', { json: { login: member.username, password: 'a brand new secret' } })).status,
    ).toBe(200);
    const reused = await api('POST', '/auth/reset_password', {
      json: { email: member.email, code, password: 'yet another secret' },
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe('invalid_code');
  });

  it('resends the confirmation code of an unconfirmed account', async () => {
    const username = uniqueUsername('late');
    const email = uniqueEmail('late');
    await api('POST', '/auth/register', { json: { username, email, password: defaultPassword } });
    const firstCode = await latestCode(email);
    // Within the minute a resend sends nothing (test/api/mail-limits.test.ts); here the minute has passed: its slot
    // is freed, and Auth's interval between two e-mails waited out.
    await asRoot`delete from private.code_mails where kind = 'signup' and user_id = (select id from auth.users where email = ${email})`;
    await waitOutMailInterval({ email });
    const since = new Date();
    expect((await api('POST', '/auth/resend_code', { json: { email } })).status).toBe(200);
    const code = await latestCode(email, since);
    expect(code).toMatch(/^\d{6}$/);
    expect((await api('POST', '/auth/confirm_email', { json: { email, code } })).status).toBe(200);
    expect(firstCode).toMatch(/^\d{6}$/);
  });
});

auth('sessions end at once', () => {
  it('a logged-out access token is refused immediately, and logout with all ends every session', async () => {
    const member = await registerAndConfirm('member');
    const second = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    const out = await api('POST', '/auth/logout', { token: member.session.access_token });
    expect(out.status).toBe(200);
    expect((await api('GET', '/auth/user', { token: member.session.access_token })).status).toBe(401);
    // Also where no token is needed: an ended session is refused, not taken for an anonymous caller.
    expect((await api('GET', `/${member.username}`, { token: member.session.access_token })).status).toBe(401);
    expect((await api('GET', `/${member.username}`)).status).toBe(200);
    expect((await api('GET', '/auth/user', { token: second.body.session.access_token })).status).toBe(200);
    await api('POST', '/auth/logout', { token: second.body.session.access_token, json: { all: true } });
    expect((await api('GET', '/auth/user', { token: second.body.session.access_token })).status).toBe(401);
  });

  it('a ban refuses the old access token, the refresh token and the login', async () => {
    const member = await registerAndConfirm('member');
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    await rpc(admin, 'admin_ban_user', { p_username: member.username, p_reason: 'abuse' });
    expect((await api('GET', '/auth/user', { token: member.session.access_token })).status).toBe(401);
    expect((await api('POST', '/auth/refresh', { json: { refresh_token: member.session.refresh_token } })).status).toBe(
      401,
    );
    // Auth refuses a ban before it checks the password: the answer must not tell that the account exists.
    const login = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    const guess = await api('POST', '/auth/login', { json: { login: member.username, password: 'any guess at all' } });
    const unknown = await api('POST', '/auth/login', {
      json: { login: 'nobody_at_all', password: 'any guess at all' },
    });
    expect(withoutRequestId(login)).toEqual(withoutRequestId(unknown));
    expect(withoutRequestId(guess)).toEqual(withoutRequestId(unknown));
  });

  it('refuses tokens signed with the right key but expired, for another audience or issuer, or not a user', async () => {
    const member = await registerAndConfirm('member');
    const { key_ops: _ops, use: _use, ...privateJwk } = stack.signingKey;
    const key = await importJWK(privateJwk, 'ES256');
    const payload = JSON.parse(Buffer.from(member.session.access_token.split('.')[1], 'base64url').toString());
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...payload, ...claims }).setProtectedHeader({ alg: 'ES256', kid: stack.signingKey.kid, typ: 'JWT' })
        .sign(key);
    expect((await api('GET', '/auth/user', { token: await sign({}) })).status).toBe(200); // the forgery works when honest
    const claimsList = [
      { exp: Math.floor(Date.now() / 1000) - 60 },
      { aud: 'someone-else' },
      { iss: 'https://elsewhere.example/auth/v1' },
      { role: 'anon' },
      { role: 'service_role' },
      { sub: 'not-a-uuid' },
      { sub: '' },
      { session_id: 'x' },
    ];
    for (const claims of claimsList) {
      const response = await api('GET', '/auth/user', { token: await sign(claims) });
      expect([claims, response.status, response.body.error.code]).toEqual([claims, 401, 'invalid_token']);
    }
  });
});

auth('PUT /user and PUT /resetprofilepicture', () => {
  it('edits the profile with the registration rules, and changes the password only with the current one', async () => {
    const member = await registerAndConfirm('member');
    const other = await registerAndConfirm('other');
    const token = member.session.access_token;
    const newName = uniqueUsername('renamed');
    const edited = await api('PUT', '/user', {
      token,
      json: { username: newName, bio: 'hello', is_private: true, avatar_url: `${member.userId}/avatar.png` },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.profile).toMatchObject({
      username: newName,
      bio: 'hello',
      is_private: true,
      avatar_url: `${member.userId}/avatar.png`,
    });
    expect((await api('PUT', '/user', { token, json: { username: other.username } })).body.error.code).toBe(
      'username_taken',
    );
    expect((await api('PUT', '/user', { token, json: { username: 'support' } })).body.error.code).toBe(
      'username_reserved',
    );
    expect((await api('PUT', '/user', { token, json: { time_zone: 'Nowhere/Land' } })).body.error.code).toBe(
      'invalid_time_zone',
    );
    expect((await api('PUT', '/user', { token, json: { unknown_field: 1 } })).status).toBe(400);
    for (
      const avatar of [
        'javascript:alert(1)',
        'https://elsewhere.example/a.png',
        '../other/avatar.png',
        '',
        `${other.userId}/avatar.png`,
      ]
    ) {
      expect([avatar, (await api('PUT', '/user', { token, json: { avatar_url: avatar } })).status]).toEqual([
        avatar,
        400,
      ]);
    }
    expect((await api('PUT', '/user', { json: { bio: 'anonymous' } })).status).toBe(401);

    expect((await api('PUT', '/user', { token, json: { password: 'new password 1' } })).body.error.code).toBe(
      'current_password_required',
    );
    const wrong = await api('PUT', '/user', {
      token,
      json: { password: 'new password 1', current_password: 'nope nope', bio: 'not saved' },
    });
    expect(wrong.status).toBe(401);
    const changed = await api('PUT', '/user', {
      token,
      json: { password: 'new password 1', current_password: member.password },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.profile.bio).toBe('hello');
    const login = await api('POST', '/auth/login', { json: { login: newName, password: 'new password 1' } });
    expect(login.status).toBe(200);
    // Auth itself asks for the current password: the access token of a password login alone changes nothing,
    // even through supabase-js. (Auth exempts sessions begun with an e-mailed code, as `token` was.)
    const direct = async (changes: Record<string, string>) =>
      (await fetch(`${stack.apiUrl}/auth/v1/user`, {
        method: 'PUT',
        headers: {
          apikey: stack.anonKey,
          Authorization: `Bearer ${login.body.session.access_token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(changes),
      })).status;
    expect(await direct({ password: 'stolen token password' })).toBe(400);
    expect(await direct({ password: 'stolen token password', current_password: 'a wrong guess' })).toBe(400);
    expect((await api('POST', '/auth/login', { json: { login: newName, password: 'stolen token password' } })).status)
      .toBe(401);
    expect(await direct({ password: 'new password 2', current_password: 'new password 1' })).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: newName, password: 'new password 2' } })).status).toBe(
      200,
    );

    // A password change ends the account's other sessions.
    expect((await api('GET', '/auth/user', { token })).status).toBe(401);
    const reset = await api('PUT', '/resetprofilepicture', { token: login.body.session.access_token });
    expect(reset.status).toBe(200);
    expect(reset.body.profile.avatar_url).toBeNull();
  });
});

auth('the whole journey', () => {
  it('register → confirm → login → refresh → edit → request delete code → delete → login refused', async () => {
    const member = await registerAndConfirm('journey');
    const login = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    expect(login.status).toBe(200);
    const refreshed = await api('POST', '/auth/refresh', { json: { refresh_token: login.body.session.refresh_token } });
    expect(refreshed.status).toBe(200);
    const token = refreshed.body.session.access_token;
    expect((await api('PUT', '/user', { token, json: { display_name: 'Leaving soon' } })).status).toBe(200);
    await rpc(
      {
        name: 'journey',
        role: 'authenticated',
        claims: JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()),
      },
      'create_post',
      { p_body: 'my last day' },
    );

    const since = new Date();
    expect((await api('POST', '/auth/requestdeletecode', { token })).status).toBe(200);
    const code = await latestCode(member.email, since);
    expect((await api('DELETE', '/user', { token, json: { code: '000000' } })).status).toBe(400);
    const deleted = await api('DELETE', '/user', { token, json: { code } });
    expect(deleted.status).toBe(200);

    const after = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_credentials');
    expect((await api('GET', '/auth/user', { token })).status).toBe(401);
  });
});

auth('changing the e-mail', () => {
  it('needs the current password, then the codes sent to both addresses', async () => {
    const member = await registerAndConfirm('mover');
    const token = member.session.access_token;
    const newEmail = uniqueEmail('moved');
    expect((await api('PUT', '/user', { token, json: { email: newEmail } })).body.error.code).toBe(
      'current_password_required',
    );
    const since = new Date();
    const asked = await api('PUT', '/user', { token, json: { email: newEmail, current_password: member.password } });
    expect(asked.status).toBe(200);
    expect(asked.body.email_change_pending).toBe(true);
    const oldCode = await latestCode(member.email, since);
    const newCode = await latestCode(newEmail, since);
    const first = await api('POST', '/auth/confirm_email', {
      json: { email: member.email, code: oldCode, type: 'email_change' },
    });
    const second = await api('POST', '/auth/confirm_email', {
      json: { email: newEmail, code: newCode, type: 'email_change' },
    });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body.profile.email).toBe(newEmail);
    const me = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    expect(me.body.profile.email).toBe(newEmail);
  });
});
