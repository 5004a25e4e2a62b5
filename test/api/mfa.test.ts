// Two-factor with TOTP (docs/PRODUCT.md, "Two-factor"): enrolled, verified and removed through Supabase Auth's own
// MFA endpoints via the facade; once verified, the database asks for an aal2 session before the acts that could
// lock the owner out (ending other sessions, the password, the account) and every admin act. Codes are computed
// with otpauth, as an authenticator app computes them.
import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api, apiFrom } from '../helpers/http.ts';
import { latestCode } from '../helpers/mailpit.ts';
import { resetCode } from '../helpers/reset-codes.ts';
import { refusal, sdkUser, signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

/** The code an authenticator app shows, `periods` 30-second steps from now (Auth accepts one step either way). */
const codeOf = (secret: string, periods = 0) =>
  new TOTP({ secret }).generate({ timestamp: Date.now() + periods * 30_000 });
/** A code Auth refuses now: none of the three it accepts. */
const wrongCodeOf = (secret: string) =>
  ['000000', '111111', '222222', '333333'].find((code) => ![-1, 0, 1].some((p) => codeOf(secret, p) === code))!;

async function logIn(account: Account) {
  const answer = await api('POST', '/auth/login', { json: { login: account.username, password: defaultPassword } });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** `account` with a verified TOTP factor: its secret, the factor's id and an aal2 session's access token. */
async function withFactor(account: Account) {
  const enrolled = await api('POST', '/user/mfa/totp', {
    token: account.accessToken,
    json: { friendly_name: 'phone', current_password: defaultPassword },
  });
  expect(enrolled.status).toBe(200);
  const { id, secret } = enrolled.body;
  const verified = await api('POST', `/user/mfa/${id}/verify`, {
    token: account.accessToken,
    json: { code: codeOf(secret) },
  });
  expect(verified.status).toBe(200);
  await letCodesPass(id);
  return { id, secret, aal2: verified.body.session.access_token as string, verified };
}

/**
 * As if the 90 seconds after a factor's last accepted code had passed: a factor accepts a code once, so no code is
 * accepted until every code that might have been the one used is out of Auth's window (31_second_factor_checks.sql).
 */
async function letCodesPass(factorId: string): Promise<void> {
  await asRoot`update private.factor_code_checks set last_accepted_step = last_accepted_step - 3 where factor_id = ${factorId}`;
}

describe.skipIf(!authIsRunning)('two-factor', () => {
  it('enrolls an authenticator app, counts it once a code is verified, and refuses a wrong code', async () => {
    const owner = await createAccount('owner');
    const enrolled = await api('POST', '/user/mfa/totp', {
      token: owner.accessToken,
      json: { friendly_name: 'phone', current_password: defaultPassword },
    });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await api('GET', '/user/mfa', { token: owner.accessToken })).body)
      .toMatchObject({ aal: 'aal1', factors: [{ id: enrolled.body.id, status: 'unverified', factor_type: 'totp' }] });
    expect((await logIn(owner)).mfa).toMatchObject({ aal: 'aal1', step_up_required: false, factors: [] });

    const wrong = await api('POST', `/user/mfa/${enrolled.body.id}/verify`, {
      token: owner.accessToken,
      json: { code: '000000' },
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: { code: 'invalid_code' } } });
    const right = await api('POST', `/user/mfa/${enrolled.body.id}/verify`, {
      token: owner.accessToken,
      json: { code: codeOf(enrolled.body.secret) },
    });
    expect(right.status).toBe(200);
    expect(right.body.mfa).toMatchObject({
      aal: 'aal2',
      step_up_required: false,
      factors: [{ id: enrolled.body.id, factor_type: 'totp' }],
    });
    const other = await createAccount('other');
    expect(
      (await api('POST', `/user/mfa/${enrolled.body.id}/verify`, {
        token: other.accessToken,
        json: { code: codeOf(enrolled.body.secret) },
      })).status,
    )
      .toBe(404);
  });

  it('signs in at aal1 and says to step up; sensitive acts need aal2 until a code is verified', async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner);
    const login = await logIn(owner);
    expect(login.mfa).toMatchObject({ aal: 'aal1', step_up_required: true, factors: [{ id }] });
    const aal1 = login.session.access_token;

    const refusals = [
      await api('PUT', '/user', {
        token: aal1,
        json: { password: 'another good password', current_password: defaultPassword },
      }),
      await api('DELETE', '/user', { token: aal1, json: { code: '123456' } }),
      await api('DELETE', `/user/mfa/${id}`, { token: aal1 }),
    ];
    for (const refused of refusals) {
      expect(refused).toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    }
    // Nothing else: until it steps up, the session is anybody to the database (its profile too), but for its
    // factors, its sessions and a factor recovery.
    expect(await api('PUT', '/user', { token: aal1, json: { bio: 'still me' } }))
      .toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    expect(await api('GET', '/auth/user', { token: aal1 }))
      .toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    expect([login.profile, login.user.email]).toEqual([null, null]);
    expect((await api('GET', '/user/mfa', { token: aal1 })).status).toBe(200);
    expect((await api('GET', '/user/sessions', { token: aal1 })).status).toBe(200);

    const bystander = (await logIn(owner)).session.access_token;
    const stepped = await api('POST', `/user/mfa/${id}/verify`, { token: aal1, json: { code: codeOf(secret) } });
    expect(stepped.body.mfa).toMatchObject({ aal: 'aal2', step_up_required: false });
    // Auth ends the account's other aal1 sessions when one steps up (docs/PRODUCT.md, "Two-factor").
    expect((await api('GET', '/auth/user', { token: bystander })).status).toBe(401);
    const aal2 = stepped.body.session.access_token;
    expect((await api('POST', '/user/sessions/end_others', { token: aal2 })).status).toBe(200);
    expect((await api('DELETE', `/user/mfa/${id}`, { token: aal2 })).status).toBe(200);
    expect((await logIn(owner)).mfa).toMatchObject({ step_up_required: false, factors: [] });
  });

  it('an admin with a second factor acts and sees as one only from an aal2 session; an admin without one as before', async () => {
    const [guarded, plain] = await Promise.all([createAccount('guarded'), createAccount('plain')]);
    await Promise.all([makeAdmin(guarded), makeAdmin(plain)]);
    const { aal2 } = await withFactor(guarded);
    const aal1 = (await logIn(guarded)).session.access_token;
    expect(await api('GET', '/admin/bans', { token: aal1 })).toMatchObject({
      status: 403,
      body: { error: { code: 'second_factor_required' } },
    });
    expect((await api('GET', '/admin/bans', { token: aal2 })).status).toBe(200);
    expect((await api('GET', '/admin/bans', { token: plain.accessToken })).status).toBe(200);

    // Its powers in the policies too: at aal1 it reads as anybody, at aal2 as an admin.
    const writer = await createAccount('writer');
    const secret =
      (await api('POST', '/post/create', { token: writer.accessToken, json: { body: 'only me', privacy: 'private' } }))
        .body.id;
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
    const started = await api('POST', '/user/mfa/recovery', {
      token: aal1,
      json: { code: await latestCode(owner.email, since) },
    });
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
    const aal2 =
      (await api('POST', `/user/mfa/${id}/verify`, { token: aal1, json: { code: codeOf(secret) } })).body.session
        .access_token;
    expect((await api('DELETE', '/user/mfa/recovery', { token: aal2 })).status).toBe(200);
    expect((await api('GET', '/user/mfa', { token: aal1 })).body.recovery).toBeNull();

    // Started again and waited out (the wait moved into the past here): the factors go.
    await asRoot`insert into private.factor_recoveries (user_id, requested_at, completes_at)
      values (${owner.id}, now() - interval '73 hours', now() - interval '1 hour')`;
    expect(await api('POST', '/user/mfa/recovery/complete', { token: aal1 })).toMatchObject({
      status: 200,
      body: { removed: 1 },
    });
    expect((await logIn(owner)).mfa).toMatchObject({ step_up_required: false, factors: [], recovery: null });
    expect((await api('POST', '/user/sessions/end_others', { token: aal1 })).status).toBe(200);
  });

  it('a recovery cannot be started without the e-mailed code, nor for an account without a factor', async () => {
    const owner = await createAccount('owner');
    // The function that starts it is the facade's, after the code: not a client's to call.
    expect((await api('POST', '/user/mfa/recovery', { token: owner.accessToken, json: { code: '123456' } })).status)
      .toBe(400);
    const since = new Date();
    await api('POST', '/user/mfa/recovery/code', { token: owner.accessToken });
    const refused = await api('POST', '/user/mfa/recovery', {
      token: owner.accessToken,
      json: { code: await latestCode(owner.email, since) },
    });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'no_second_factor' } } });
    expect(await asRoot`select 1 from private.factor_recoveries where user_id = ${owner.id}`).toHaveLength(0);
  });
  it("a stolen access token cannot add an authenticator: the owner proves it is them, through the facade or Auth's own door", async () => {
    const owner = await sdkUser('owner');
    // The facade asks for the password (or an e-mailed code); a wrong one leaves no factor behind.
    const bare = await api('POST', '/user/mfa/totp', { token: owner.accessToken, json: { friendly_name: 'thief' } });
    expect(bare).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    const guessed = await api('POST', '/user/mfa/totp', {
      token: owner.accessToken,
      json: { friendly_name: 'thief', current_password: 'not the password' },
    });
    expect(guessed).toMatchObject({ status: 401, body: { error: { code: 'wrong_password' } } });
    expect((await api('GET', '/user/mfa', { token: owner.accessToken })).body.factors).toEqual([]);

    // supabase-js, straight to Auth: the factor enrolls, but Auth's hook refuses its first code until the owner
    // proves it is them; the refusal signs nobody out.
    const { data: enrolled } = await owner.sdk.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'thief app' });
    const refused = await owner.sdk.auth.mfa.challengeAndVerify({
      factorId: enrolled!.id,
      code: codeOf(enrolled!.totp.secret),
    });
    expect(refused.error?.status).toBe(403);
    expect(refused.error?.message).toMatch(/^owner_proof_required: /);
    expect((await api('GET', '/auth/user', { token: owner.accessToken })).status).toBe(200);
    const stranger = await sdkUser('stranger');
    expect(
      refusal(await stranger.sdk.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_password: defaultPassword })),
    )
      .toEqual({ status: 404, code: 'PT404', hint: 'factor_not_found' });
    expect(refusal(await owner.sdk.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_password: 'a guess' })))
      .toEqual({ status: 401, code: 'PT401', hint: 'wrong_password' });

    expect((await owner.sdk.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_password: defaultPassword })).data)
      .toEqual({ proved: true, factor_id: enrolled!.id });
    const accepted = await owner.sdk.auth.mfa.challengeAndVerify({
      factorId: enrolled!.id,
      code: codeOf(enrolled!.totp.secret),
    });
    expect(accepted.error).toBeNull();
  });

  it("an e-mailed code proves the owner too (accounts without a password); 5 wrong proofs lock that session's proofs, not the owner's others", async () => {
    const owner = await sdkUser('owner');
    const { data: enrolled } = await owner.sdk.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    const since = new Date();
    expect((await owner.sdk.auth.reauthenticate()).error).toBeNull();
    const code = await latestCode(owner.email, since);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) {
      expect(refusal(await owner.sdk.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_code: wrong })))
        .toMatchObject({ status: 400, hint: 'invalid_code' });
    }
    // Locked for this session: the right code is refused too, before it is checked.
    expect(refusal(await owner.sdk.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_code: code })))
      .toEqual({ status: 429, code: 'PT429', hint: 'too_many_attempts' });
    // Another session of the owner's (the guesses may be a stolen token's) proves at once.
    const otherSession = await signedInSdk(owner);
    expect((await otherSession.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_code: code })).data)
      .toMatchObject({ proved: true });
    // The code is used up.
    expect(refusal(await otherSession.rpc('prove_factor_owner', { p_factor_id: enrolled!.id, p_code: code })))
      .toEqual({ status: 400, code: 'PT400', hint: 'invalid_code' });
  });

  it("wrong codes lock the address that sent them, then every new address, never the owner's own; a code is accepted once", async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner); // verified from 127.0.0.1: the owner's address
    const aal1 = (await logIn(owner)).session.access_token;
    const verify = `/user/mfa/${id}/verify`;
    const wrong = async (source: string) =>
      (await apiFrom(source, 'POST', verify, { token: aal1, json: { code: wrongCodeOf(secret) } })).status;
    for (let i = 0; i < 5; i++) expect(await wrong('127.0.0.60')).toBe(400);
    // That address is locked for the rest of its 15 minutes, the right code included, and told the real wait.
    const locked = await apiFrom('127.0.0.60', 'POST', verify, { token: aal1, json: { code: codeOf(secret) } });
    expect(locked).toMatchObject({ status: 429, body: { error: { code: 'too_many_code_attempts' } } });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(880);
    expect((await api('GET', '/user/mfa', { token: aal1 })).status).toBe(200);
    // Past 10 from new addresses, every new address waits; the owner's own address does not.
    for (let i = 1; i <= 5; i++) expect(await wrong(`127.0.0.${60 + i}`)).toBe(400);
    expect(await apiFrom('127.0.0.70', 'POST', verify, { token: aal1, json: { code: codeOf(secret) } }))
      .toMatchObject({ status: 429, body: { error: { code: 'too_many_code_attempts' } } });
    expect((await api('POST', verify, { token: aal1, json: { code: codeOf(secret) } })).status).toBe(200);
    await letCodesPass(id);

    await asRoot`update private.factor_code_checks set failures_since = now() - interval '16 minutes' where factor_id = ${id}`;
    const code = codeOf(secret);
    expect((await api('POST', verify, { token: aal1, json: { code } })).status).toBe(200);
    const other = (await logIn(owner)).session.access_token;
    expect(await api('POST', verify, { token: other, json: { code } }))
      .toMatchObject({ status: 409, body: { error: { code: 'code_already_used' } } });
    // The facade names the client's address to Auth, so Auth's per-address limits count per client.
    await letCodesPass(id);
    expect((await apiFrom('127.0.0.71', 'POST', verify, { token: other, json: { code: codeOf(secret) } })).status).toBe(
      200,
    );
    const [entry] = await asRoot`select ip_address from auth.audit_log_entries
      where payload ->> 'actor_id' = ${owner.id} and payload ->> 'action' = 'verification_attempted' order by created_at desc limit 1`;
    expect(entry.ip_address).toBe('127.0.0.71');
  });

  it("junk factors enrolled with a stolen token cannot keep the owner from adding an authenticator, on Auth's door either", async () => {
    const owner = await sdkUser('owner');
    const thief = await signedInSdk(owner);
    for (let i = 0; i < 12; i++) {
      expect((await thief.auth.mfa.enroll({ factorType: 'totp', friendlyName: `junk ${i}` })).error).toBeNull();
    }
    const [{ count }] = await asRoot`select count(*)::int as count from auth.mfa_factors where user_id = ${owner.id}`;
    expect(count).toBe(9);
    const mine = await api('POST', '/user/mfa/totp', {
      token: owner.accessToken,
      json: { current_password: defaultPassword },
    });
    expect(mine.status).toBe(200);
    // What the owner proved stays, however much junk follows.
    for (let i = 12; i < 24; i++) await thief.auth.mfa.enroll({ factorType: 'totp', friendlyName: `junk ${i}` });
    expect(await asRoot`select 1 from auth.mfa_factors where id = ${mine.body.id}`).toHaveLength(1);
    expect(
      (await api('POST', `/user/mfa/${mine.body.id}/verify`, {
        token: owner.accessToken,
        json: { code: codeOf(mine.body.secret) },
      })).status,
    ).toBe(200);
  });

  it("a forgotten password with a second factor: the e-mailed code and the authenticator's, or the 72-hour removal", async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner);
    const reset = async (password: string, more: Record<string, unknown> = {}) =>
      api('POST', '/auth/reset_password', {
        json: { email: owner.email, code: await resetCode(owner), password, ...more },
      });
    const signsIn = async (password: string) =>
      (await api('POST', '/auth/login', { json: { login: owner.username, password } })).status;

    expect(await reset('first new password')).toMatchObject({
      status: 403,
      body: { error: { code: 'second_factor_required' } },
    });
    expect(await signsIn(defaultPassword)).toBe(200);
    const proved = await reset('second new password', { totp_code: codeOf(secret) });
    expect(proved.status).toBe(200);
    expect(proved.body.mfa).toMatchObject({ aal: 'aal1', step_up_required: true });
    expect(await signsIn('second new password')).toBe(200);
    expect(await signsIn(defaultPassword)).toBe(401);

    // The authenticator lost: the reset code starts its removal; the password stays until the wait is over.
    const lost = await reset('third new password', { lost_authenticator: true });
    expect(lost.status).toBe(202);
    expect(Date.parse(lost.body.completes_at) - Date.parse(lost.body.requested_at)).toBe(72 * 3600_000);
    expect(await signsIn('third new password')).toBe(401);
    await asRoot`update private.factor_recoveries set requested_at = now() - interval '73 hours', completes_at = now() - interval '1 hour'
      where user_id = ${owner.id}`;
    const done = await reset('third new password', { lost_authenticator: true });
    expect(done.status).toBe(200);
    expect(done.body.mfa).toMatchObject({ step_up_required: false, factors: [] });
    expect(await asRoot`select 1 from auth.mfa_factors where id = ${id}`).toHaveLength(0);
  });
});
