// What an attacker with a stolen token, or with many client addresses, cannot do to an account
// (docs/ACCOUNTS-SECURITY.md, "Security"). Each case also shows what the account's owner still can.
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { api, apiFrom, sourceAddresses } from '../helpers/http.ts';
import { latestCode, mailCount } from '../helpers/mailpit.ts';
import { registerAndConfirm, withoutRequestId } from '../helpers/registration.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword, uniqueEmail } from '../helpers/users.ts';
import { uniqueUsername } from '../helpers/accounts.ts';
import { waitOutMailInterval } from '../helpers/reset-codes.ts';

const auth = describe.skipIf(!authIsRunning);

/** PUT /auth/v1/user straight to Supabase Auth, as supabase-js `updateUser` sends it. */
async function changeThroughAuth(accessToken: string, changes: Record<string, string>): Promise<number> {
  const response = await fetch(`${stack.apiUrl}/auth/v1/user`, {
    method: 'PUT',
    headers: { apikey: stack.anonKey, Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(changes),
  });
  await response.body?.cancel();
  return response.status;
}

async function canLogIn(login: string, password: string): Promise<boolean> {
  return (await api('POST', '/auth/login', { json: { login, password } })).status === 200;
}

auth('a stolen access token', () => {
  it('of a session begun by confirming the e-mail, or refreshed from one, cannot change the password', async () => {
    const member = await registerAndConfirm('victim');
    expect(await changeThroughAuth(member.session.access_token, { password: 'attacker password' })).toBe(400);
    const refreshed = await api('POST', '/auth/refresh', { json: { refresh_token: member.session.refresh_token } });
    expect(await changeThroughAuth(refreshed.body.session.access_token, { password: 'attacker password' })).toBe(400);
    expect(await canLogIn(member.username, 'attacker password')).toBe(false);
    // Its owner, who knows the current password, still can.
    expect(
      await changeThroughAuth(refreshed.body.session.access_token, {
        password: 'owner new password',
        current_password: member.password,
      }),
    ).toBe(200);
    expect(await canLogIn(member.username, 'owner new password')).toBe(true);
  });

  it('of the session POST /auth/reset_password answers with cannot change the password again', async () => {
    const member = await registerAndConfirm('victim');
    const since = new Date();
    await api('POST', '/auth/forget_password', { json: { email: member.email } });
    const code = await latestCode(member.email, since);
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: member.email, code, password: 'owner new password' },
    });
    expect(reset.status).toBe(200);
    expect(await changeThroughAuth(reset.body.session.access_token, { password: 'attacker password' })).toBe(400);
    expect(await canLogIn(member.username, 'owner new password')).toBe(true);
  });

  it('is not needed by a supabase-js client resetting its password with the e-mailed code', async () => {
    const member = await registerAndConfirm('forgetful');
    const client = authClient();
    const since = new Date();
    expect((await client.resetPasswordForEmail(member.email)).error).toBeNull();
    const verified = await client.verifyOtp({
      email: member.email,
      token: await latestCode(member.email, since),
      type: 'recovery',
    });
    expect(verified.error).toBeNull();
    expect((await client.updateUser({ password: 'recovered password' })).error).toBeNull();
    expect(await canLogIn(member.username, 'recovered password')).toBe(true);
  });
});

auth('guessing e-mailed codes from many addresses', () => {
  it('voids a sign-up code after 10 wrong tries, however many addresses they come from; a new code works', async () => {
    const email = uniqueEmail('target');
    const username = uniqueUsername('target');
    expect((await api('POST', '/auth/register', { json: { username, email, password: defaultPassword } })).status).toBe(
      201,
    );
    const code = await latestCode(email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    // 40 wrong codes at once from 20 addresses (2 each): all refused alike.
    const guesses = await Promise.all(
      sourceAddresses(20).flatMap((source) =>
        [0, 1].map(() => apiFrom(source, 'POST', '/auth/confirm_email', { json: { email, code: wrong } }))
      ),
    );
    expect(new Set(guesses.map((guess) => `${guess.status} ${guess.body.error.code}`))).toEqual(
      new Set(['400 invalid_code']),
    );
    // The right code no longer works, through the facade or straight through Auth.
    const right = await apiFrom('127.0.0.30', 'POST', '/auth/confirm_email', { json: { email, code } });
    expect([right.status, right.body.error?.code]).toEqual([400, 'invalid_code']);
    expect((await authClient().verifyOtp({ email, token: code, type: 'signup' })).error).not.toBeNull();

    // A new code within the minute: its e-mail's slot (private.take_mail_slot, tested in mail-limits.test.ts) is
    // freed, and Auth's interval between two e-mails waited out.
    await asRoot`delete from private.code_mails where kind = 'signup' and user_id = (select id from auth.users where email = ${email})`;
    await waitOutMailInterval({ email });
    const since = new Date();
    await api('POST', '/auth/resend_code', { json: { email } });
    const fresh = await api('POST', '/auth/confirm_email', { json: { email, code: await latestCode(email, since) } });
    expect(fresh.status).toBe(200);
  });

  it('voids a password-reset code the same way, while one address alone only stops itself', async () => {
    /** A fresh reset code of a fresh account, and a wrong one. */
    const resetCode = async () => {
      const member = await registerAndConfirm('target');
      const since = new Date();
      await api('POST', '/auth/forget_password', { json: { email: member.email } });
      const code = await latestCode(member.email, since);
      return { member, code, wrong: String((Number(code) + 1) % 1_000_000).padStart(6, '0') };
    };
    const reset = (source: string, email: string, code: string) =>
      apiFrom(source, 'POST', '/auth/reset_password', { json: { email, code, password: 'a new password' } });

    // Six wrong tries from one address: that address is stopped, the owner (another address) is not.
    const alone = await resetCode();
    for (let i = 0; i < 6; i++) expect((await reset('127.0.0.2', alone.member.email, alone.wrong)).status).toBe(400);
    expect((await reset('127.0.0.2', alone.member.email, alone.code)).status).toBe(400);
    expect((await reset('127.0.0.3', alone.member.email, alone.code)).status).toBe(200);

    // Eleven from three addresses: the code is void for everyone.
    const many = await resetCode();
    for (const source of sourceAddresses(3)) {
      for (let i = 0; i < 4; i++) expect((await reset(source, many.member.email, many.wrong)).status).toBe(400);
    }
    const right = await reset('127.0.0.9', many.member.email, many.code);
    expect([right.status, right.body.error?.code]).toEqual([400, 'invalid_code']);
    expect(await canLogIn(many.member.username, many.member.password)).toBe(true);
  });

  it("answers a banned account's address as an unknown one", async () => {
    const member = await registerAndConfirm('banned');
    await asRoot`select moderation.ban_user(${member.username}, 'spam')`;
    const banned = await api('POST', '/auth/reset_password', {
      json: { email: member.email, code: '123456', password: 'a new password' },
    });
    const unknown = await api('POST', '/auth/reset_password', {
      json: { email: uniqueEmail('ghost'), code: '123456', password: 'a new password' },
    });
    expect(withoutRequestId(banned)).toEqual(withoutRequestId(unknown));
  });
});

auth('answer times', () => {
  /** The median time, in ms, of `count` calls of `call`. */
  async function medianMs(count: number, call: () => Promise<unknown>): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await call();
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[Math.floor(count / 2)];
  }

  it('do not tell known addresses from unknown ones on forget_password, login_code and resend_code', async () => {
    const member = await registerAndConfirm('known');
    for (
      const [path, json] of [
        ['/auth/forget_password', {}],
        ['/auth/login_code', {}],
        ['/auth/resend_code', { type: 'recovery' }],
        ['/auth/resend_code', { type: 'signup' }],
      ] as const
    ) {
      const known = await medianMs(3, () => api('POST', path, { json: { ...json, email: member.email } }));
      const unknown = await medianMs(3, () => api('POST', path, { json: { ...json, email: uniqueEmail('ghost') } }));
      expect([path, known >= 495, unknown >= 495, Math.abs(known - unknown) < 60]).toEqual([path, true, true, true]);
    }
  });

  it('do not tell a new address from a confirmed one on register', async () => {
    const member = await registerAndConfirm('known');
    const register = (email: string) => () =>
      api('POST', '/auth/register', { json: { username: uniqueUsername('new'), email, password: defaultPassword } });
    const known = await medianMs(3, register(member.email));
    const unknown = await medianMs(3, () => register(uniqueEmail('new'))());
    expect([known >= 1495, unknown >= 1495, Math.abs(known - unknown) < 100]).toEqual([true, true, true]);
  });
});

auth('code e-mails', () => {
  it('go to one address at most once a minute, however many clients ask at once', async () => {
    const member = await registerAndConfirm('flooded');
    const bystander = await registerAndConfirm('bystander');
    const before = await mailCount(member.email, 0);
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        sourceAddresses(10).map((source) =>
          apiFrom(source, 'POST', '/auth/forget_password', { json: { email: member.email } })
        ),
      );
    }
    expect(await mailCount(member.email) - before).toBe(1);
    // Another account's code still goes out.
    const since = new Date();
    await api('POST', '/auth/forget_password', { json: { email: bystander.email } });
    expect(await latestCode(bystander.email, since)).toMatch(/^\d{6}$/);
  });

  it('for deleting the account: a second request within the minute is a 429', async () => {
    const member = await registerAndConfirm('leaving');
    const token = member.session.access_token;
    expect((await api('POST', '/auth/requestdeletecode', { token })).status).toBe(200);
    const again = await api('POST', '/auth/requestdeletecode', { token });
    expect([again.status, again.body.error.code, again.headers.get('retry-after')]).toEqual([
      429,
      'rate_limited',
      '60',
    ]);
    const [row] =
      await asRoot`select count(*)::int as n from private.code_mails where user_id = ${member.userId} and kind = 'magiclink'`;
    expect(row.n).toBe(1);
  });
});
