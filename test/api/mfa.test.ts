// Two-factor with TOTP (docs/PRODUCT.md, "Two-factor"): enrolled, verified and removed through Supabase Auth's own
// MFA endpoints via the facade; once verified, the database asks for an aal2 session before the acts that could
// lock the owner out (ending other sessions, the password, the account) and every admin act. Codes are computed
// with otpauth, as an authenticator app computes them.
import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { latestCode } from '../helpers/mailpit.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

/** The code an authenticator app shows, `periods` 30-second steps from now (Auth accepts one step either way). */
const codeOf = (secret: string, periods = 0) => new TOTP({ secret }).generate({ timestamp: Date.now() + periods * 30_000 });

async function logIn(account: Account) {
  const answer = await api('POST', '/auth/login', { json: { login: account.username, password: defaultPassword } });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** `account` with a verified TOTP factor: its secret, the factor's id and an aal2 session's access token. */
async function withFactor(account: Account) {
  const enrolled = await api('POST', '/user/mfa/totp', { token: account.accessToken, json: { friendly_name: 'phone' } });
  expect(enrolled.status).toBe(200);
  const { id, secret } = enrolled.body;
  const verified = await api('POST', `/user/mfa/${id}/verify`, { token: account.accessToken, json: { code: codeOf(secret, -1) } });
  expect(verified.status).toBe(200);
  return { id, secret, aal2: verified.body.session.access_token as string, verified };
}

describe.skipIf(!authIsRunning)('two-factor', () => {
  it('enrolls an authenticator app, counts it once a code is verified, and refuses a wrong code', async () => {
    const owner = await createAccount('owner');
    const enrolled = await api('POST', '/user/mfa/totp', { token: owner.accessToken, json: { friendly_name: 'phone' } });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await api('GET', '/user/mfa', { token: owner.accessToken })).body)
      .toMatchObject({ aal: 'aal1', factors: [{ id: enrolled.body.id, status: 'unverified', factor_type: 'totp' }] });
    expect((await logIn(owner)).mfa).toMatchObject({ aal: 'aal1', step_up_required: false, factors: [] });

    const wrong = await api('POST', `/user/mfa/${enrolled.body.id}/verify`, { token: owner.accessToken, json: { code: '000000' } });
    expect(wrong).toMatchObject({ status: 400, body: { error: { code: 'invalid_code' } } });
    const right = await api('POST', `/user/mfa/${enrolled.body.id}/verify`, { token: owner.accessToken, json: { code: codeOf(enrolled.body.secret) } });
    expect(right.status).toBe(200);
    expect(right.body.mfa).toMatchObject({ aal: 'aal2', step_up_required: false, factors: [{ id: enrolled.body.id, factor_type: 'totp' }] });
    const other = await createAccount('other');
    expect((await api('POST', `/user/mfa/${enrolled.body.id}/verify`, { token: other.accessToken, json: { code: codeOf(enrolled.body.secret) } })).status)
      .toBe(404);
  });

  it('signs in at aal1 and says to step up; sensitive acts need aal2 until a code is verified', async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner);
    const login = await logIn(owner);
    expect(login.mfa).toMatchObject({ aal: 'aal1', step_up_required: true, factors: [{ id }] });
    const aal1 = login.session.access_token;

    const refusals = [
      await api('POST', '/user/sessions/end_others', { token: aal1 }),
      await api('PUT', '/user', { token: aal1, json: { password: 'another good password', current_password: defaultPassword } }),
      await api('DELETE', '/user', { token: aal1, json: { code: '123456' } }),
      await api('DELETE', `/user/mfa/${id}`, { token: aal1 }),
    ];
    for (const refused of refusals) expect(refused).toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    // What does not lock anybody out stays open at aal1.
    expect((await api('PUT', '/user', { token: aal1, json: { bio: 'still me' } })).status).toBe(200);

    const stepped = await api('POST', `/user/mfa/${id}/verify`, { token: aal1, json: { code: codeOf(secret) } });
    expect(stepped.body.mfa).toMatchObject({ aal: 'aal2', step_up_required: false });
    const aal2 = stepped.body.session.access_token;
    expect((await api('POST', '/user/sessions/end_others', { token: aal2 })).status).toBe(200);
    expect((await api('DELETE', `/user/mfa/${id}`, { token: aal2 })).status).toBe(200);
    expect((await logIn(owner)).mfa).toMatchObject({ step_up_required: false, factors: [] });
  });

  it("an admin with a second factor acts and sees as one only from an aal2 session; an admin without one as before", async () => {
    const [guarded, plain] = await Promise.all([createAccount('guarded'), createAccount('plain')]);
    await Promise.all([makeAdmin(guarded), makeAdmin(plain)]);
    const { aal2 } = await withFactor(guarded);
    const aal1 = (await logIn(guarded)).session.access_token;
    expect(await api('GET', '/admin/bans', { token: aal1 })).toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    expect((await api('GET', '/admin/bans', { token: aal2 })).status).toBe(200);
    expect((await api('GET', '/admin/bans', { token: plain.accessToken })).status).toBe(200);

    // Its powers in the policies too: at aal1 it reads as the user it also is, at aal2 as an admin.
    const writer = await createAccount('writer');
    const secret = (await api('POST', '/post/create', { token: writer.accessToken, json: { body: 'only me', privacy: 'private' } })).body.id;
    expect((await api('GET', `/post/${secret}`, { token: aal1 })).status).toBe(404);
    expect((await api('GET', `/post/${secret}`, { token: aal2 })).status).toBe(200);
  });

  it('a lost authenticator: an e-mailed code starts a 72-hour wait that every session is told of and the owner may cancel; then the factors go', async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner);
    const aal1 = (await logIn(owner)).session.access_token;
    expect((await api('POST', '/user/mfa/recovery/complete', { token: aal1 })).status).toBe(404);

    const since = new Date();
    expect((await api('POST', '/user/mfa/recovery/code', { token: aal1 })).status).toBe(200);
    expect((await api('POST', '/user/mfa/recovery', { token: aal1, json: { code: '000000' } })).status).toBe(400);
    const started = await api('POST', '/user/mfa/recovery', { token: aal1, json: { code: await latestCode(owner.email, since) } });
    expect(started.status).toBe(202);
    const waitMs = Date.parse(started.body.completes_at) - Date.parse(started.body.requested_at);
    expect(waitMs).toBe(72 * 3600_000);
    // Every new session, and the list of factors, tell of it; it cannot complete early.
    expect((await logIn(owner)).mfa.recovery).toEqual(started.body);
    expect((await api('GET', '/user/mfa', { token: aal1 })).body.recovery).toEqual(started.body);
    const early = await api('POST', '/user/mfa/recovery/complete', { token: aal1 });
    expect(early).toMatchObject({ status: 409, body: { error: { code: 'recovery_pending' } } });

    // Only whoever still has the authenticator may cancel.
    expect((await api('DELETE', '/user/mfa/recovery', { token: aal1 })).status).toBe(403);
    const aal2 = (await api('POST', `/user/mfa/${id}/verify`, { token: aal1, json: { code: codeOf(secret) } })).body.session.access_token;
    expect((await api('DELETE', '/user/mfa/recovery', { token: aal2 })).status).toBe(200);
    expect((await api('GET', '/user/mfa', { token: aal1 })).body.recovery).toBeNull();

    // Started again and waited out (the wait moved into the past here): the factors go.
    await asRoot`insert into private.factor_recoveries (user_id, requested_at, completes_at)
      values (${owner.id}, now() - interval '73 hours', now() - interval '1 hour')`;
    expect(await api('POST', '/user/mfa/recovery/complete', { token: aal1 })).toMatchObject({ status: 200, body: { removed: 1 } });
    expect((await logIn(owner)).mfa).toMatchObject({ step_up_required: false, factors: [], recovery: null });
    expect((await api('POST', '/user/sessions/end_others', { token: aal1 })).status).toBe(200);
  });

  it('a recovery cannot be started without the e-mailed code, nor for an account without a factor', async () => {
    const owner = await createAccount('owner');
    // The function that starts it is the facade's, after the code: not a client's to call.
    expect((await api('POST', '/user/mfa/recovery', { token: owner.accessToken, json: { code: '123456' } })).status).toBe(400);
    const since = new Date();
    await api('POST', '/user/mfa/recovery/code', { token: owner.accessToken });
    const refused = await api('POST', '/user/mfa/recovery', { token: owner.accessToken, json: { code: await latestCode(owner.email, since) } });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'no_second_factor' } } });
    expect(await asRoot`select 1 from private.factor_recoveries where user_id = ${owner.id}`).toHaveLength(0);
  });
});
