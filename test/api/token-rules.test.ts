// The token rules a client developer meets (docs/ACCOUNTS-TOKENS.md), pinned against the real Supabase Auth:
// the access token's lifetime, refresh rotation and Auth's reuse rules, logout, bans and password resets.
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { api } from '../helpers/http.ts';
import { latestCode } from '../helpers/mailpit.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

interface Tokens {
  access: string;
  refresh: string;
}

/** `jwt_expiry` and `refresh_token_reuse_interval` of supabase/config.toml, which the test stack keeps. */
const accessTokenSeconds = 3600;
const reuseIntervalMs = 10_000;
const pastTheReuseInterval = () => new Promise((resolve) => setTimeout(resolve, reuseIntervalMs + 1_000));

/** A session of its own for `account`, signed in through the facade from a device named `device`. */
async function signIn(account: Account, device: string): Promise<Tokens> {
  const answer = await api('POST', '/auth/login', {
    json: { login: account.username, password: defaultPassword },
    headers: { 'User-Agent': device },
  });
  expect(answer.status).toBe(200);
  return { access: answer.body.session.access_token, refresh: answer.body.session.refresh_token };
}

const refresh = (refreshToken: string) => api('POST', '/auth/refresh', { json: { refresh_token: refreshToken } });

/** The new tokens of a refresh that must succeed. */
async function rotate(refreshToken: string): Promise<Tokens> {
  const answer = await refresh(refreshToken);
  expect(answer.status).toBe(200);
  return { access: answer.body.session.access_token, refresh: answer.body.session.refresh_token };
}

/** What refreshing with `refreshToken` answers: the status and the error code, if any. */
async function refreshOutcome(refreshToken: string): Promise<[number, string | undefined]> {
  const answer = await refresh(refreshToken);
  return [answer.status, answer.body.error?.code];
}

/** What GET /auth/user answers the access token with: the status and the error code, if any. */
async function accessOutcome(accessToken: string): Promise<[number, string | undefined]> {
  const answer = await api('GET', '/auth/user', { token: accessToken });
  return [answer.status, answer.body.error?.code];
}

const accepted = [200, undefined];
const refusedRefresh = [401, 'invalid_refresh_token'];
/** An access token whose session has ended (or whose account is banned). */
const endedSession = [401, 'unauthorized'];

describe.skipIf(!authIsRunning)('token rules', () => {
  it('an access token lives 3600 s, from login and from every refresh, and is refused from its expiry on', async () => {
    const reader = await createAccount('reader');
    const login = await api('POST', '/auth/login', { json: { login: reader.username, password: defaultPassword } });
    const refreshed = await refresh(login.body.session.refresh_token);
    for (const { session } of [login.body, refreshed.body]) {
      const claims = decodeJwt(session.access_token);
      expect([session.expires_in, claims.exp! - claims.iat!, session.expires_at]).toEqual([
        accessTokenSeconds,
        accessTokenSeconds,
        claims.exp,
      ]);
    }
    // A refresh revokes no access token: the one login answered still works beside the new one.
    expect(await accessOutcome(login.body.session.access_token)).toEqual(accepted);
    expect(await accessOutcome(refreshed.body.session.access_token)).toEqual(accepted);

    // The same token re-signed with Auth's key: accepted before its exp, refused (401 invalid_token) after.
    const { key_ops: _ops, use: _use, ...privateJwk } = stack.signingKey;
    const key = await importJWK(privateJwk, 'ES256');
    const withExp = (exp: number) =>
      new SignJWT({ ...decodeJwt(refreshed.body.session.access_token), exp })
        .setProtectedHeader({ alg: 'ES256', kid: stack.signingKey.kid, typ: 'JWT' }).sign(key);
    const now = Math.floor(Date.now() / 1000);
    expect(await accessOutcome(await withExp(now + 60))).toEqual(accepted);
    expect(await accessOutcome(await withExp(now - 1))).toEqual([401, 'invalid_token']);
  });

  it(
    'refresh rotation: a lost answer may be retried, any used token within 10 s, an older one kills the refresh tokens',
    async () => {
      const owner = await createAccount('owner');
      // Auth's classic 12-character refresh tokens (no refresh_token_algorithm_version set): these rules are theirs.
      const phone = await signIn(owner, 'phone');
      expect(phone.refresh).toHaveLength(12);

      // Within the interval. The token just before the current one answers the current one again (a client
      // that lost the answer); a token two rotations old, used moments ago, is accepted with a new token.
      const phone1 = await rotate(phone.refresh);
      expect(phone1.refresh).not.toBe(phone.refresh);
      const retried = await rotate(phone.refresh);
      expect(retried.refresh).toBe(phone1.refresh);
      expect(await accessOutcome(retried.access)).toEqual(accepted);
      const phone2 = await rotate(phone1.refresh);
      const branch = await rotate(phone.refresh);
      expect([phone.refresh, phone1.refresh, phone2.refresh]).not.toContain(branch.refresh);
      expect(decodeJwt(branch.access).session_id).toBe(decodeJwt(phone.access).session_id);
      expect(await refreshOutcome(branch.refresh)).toEqual(accepted);

      // Two more sessions rotated twice, to be replayed once the interval has passed.
      const tablet = await signIn(owner, 'tablet');
      const tablet1 = await rotate(tablet.refresh);
      const tablet2 = await rotate(tablet1.refresh);
      const laptop = await signIn(owner, 'laptop');
      const laptop1 = await rotate(laptop.refresh);
      const laptop2 = await rotate(laptop1.refresh);
      await pastTheReuseInterval();

      // The token just before the current one is retried however late; one two rotations old is refused.
      expect((await rotate(tablet1.refresh)).refresh).toBe(tablet2.refresh);
      expect(await refreshOutcome(tablet.refresh)).toEqual(refusedRefresh);
      // The refusal revoked every refresh token of the session, but the session stays: its access tokens work
      // on, and the newest refresh token is still taken for 10 s from the refusal, answering a live one again.
      expect(await accessOutcome(tablet2.access)).toEqual(accepted);
      const revived = await rotate(tablet2.refresh);
      expect(await refreshOutcome(revived.refresh)).toEqual(accepted);

      expect(await refreshOutcome(laptop.refresh)).toEqual(refusedRefresh);
      await pastTheReuseInterval();
      // 10 s after the refusal the laptop's newest refresh token, and the one before it, are refused for good...
      expect(await refreshOutcome(laptop2.refresh)).toEqual(refusedRefresh);
      expect(await refreshOutcome(laptop1.refresh)).toEqual(refusedRefresh);
      // ...while the session stays, listed among the devices, and its access tokens live until they expire, unless
      // the session is ended.
      expect(await accessOutcome(laptop2.access)).toEqual(accepted);
      const devices = await api('GET', '/user/sessions', { token: laptop2.access });
      expect(devices.body.items.map((session: { id: string }) => session.id)).toContain(
        decodeJwt(laptop2.access).session_id,
      );
      expect((await api('POST', '/auth/logout', { token: laptop2.access })).status).toBe(200);
      expect(await accessOutcome(laptop2.access)).toEqual(endedSession);
    },
    60_000,
  );

  it('POST /auth/logout ends this session, or with {"all": true} every session; its tokens are refused at once', async () => {
    const owner = await createAccount('owner');
    const phone = await signIn(owner, 'phone');
    const laptop = await signIn(owner, 'laptop');

    const anonymous = await api('POST', '/auth/logout');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthorized']);
    const malformed = await api('POST', '/auth/logout', { token: phone.access, json: { all: 'yes' } });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'validation_failed']);
    expect(await accessOutcome(phone.access)).toEqual(accepted);

    const local = await api('POST', '/auth/logout', { token: phone.access });
    expect([local.status, local.body.message]).toEqual([200, 'Signed out']);
    expect(await accessOutcome(phone.access)).toEqual(endedSession);
    expect(await refreshOutcome(phone.refresh)).toEqual(refusedRefresh);
    // Ended, the session is one code on every route: a logout again says what a read says.
    const again = await api('POST', '/auth/logout', { token: phone.access });
    expect([again.status, again.body.error.code]).toEqual(endedSession);
    // The account's other sessions go on.
    expect(await accessOutcome(laptop.access)).toEqual(accepted);
    const laptop1 = await rotate(laptop.refresh);

    const tablet = await signIn(owner, 'tablet');
    const everywhere = await api('POST', '/auth/logout', { token: laptop1.access, json: { all: true } });
    expect([everywhere.status, everywhere.body.message]).toEqual([200, 'Signed out everywhere']);
    for (const session of [laptop1, tablet]) {
      expect(await accessOutcome(session.access)).toEqual(endedSession);
      expect(await refreshOutcome(session.refresh)).toEqual(refusedRefresh);
    }
    // Signing in again makes a new session.
    expect(await accessOutcome((await signIn(owner, 'phone')).access)).toEqual(accepted);
  });

  it('a ban ends every session of the account at once; an unban brings none back, signing in works again', async () => {
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    const troll = await createAccount('troll');
    const phone = await signIn(troll, 'phone');
    const laptop = await signIn(troll, 'laptop');
    expect(await accessOutcome(phone.access)).toEqual(accepted);

    const ban = (json: Record<string, unknown>) =>
      api('POST', `/admin/user/${troll.username}/ban`, { token: admin.accessToken, json });
    expect((await ban({ reason: 'spam', ban: true })).status).toBe(200);
    for (const session of [phone, laptop]) {
      expect(await accessOutcome(session.access)).toEqual(endedSession);
      expect(await refreshOutcome(session.refresh)).toEqual(refusedRefresh);
    }
    const login = await api('POST', '/auth/login', { json: { login: troll.username, password: defaultPassword } });
    expect([login.status, login.body.error.code]).toEqual([401, 'invalid_credentials']);

    expect((await ban({ reason: 'appeal granted', ban: false })).status).toBe(200);
    expect(await refreshOutcome(laptop.refresh)).toEqual(refusedRefresh);
    expect(await accessOutcome(laptop.access)).toEqual(endedSession);
    expect(await accessOutcome((await signIn(troll, 'laptop')).access)).toEqual(accepted);
  });

  it('a password reset ends every session the account had; the session it answers with is the only one', async () => {
    const owner = await createAccount('forgetful');
    const phone = await signIn(owner, 'phone');
    const laptop = await signIn(owner, 'laptop');
    const since = new Date();
    await api('POST', '/auth/forget_password', { json: { email: owner.email } });
    const code = await latestCode(owner.email, since);
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code, password: 'a brand new secret' },
    });
    expect(reset.status).toBe(200);

    for (const session of [phone, laptop]) {
      expect(await accessOutcome(session.access)).toEqual(endedSession);
      expect(await refreshOutcome(session.refresh)).toEqual(refusedRefresh);
    }
    expect(await accessOutcome(owner.accessToken)).toEqual(endedSession);
    const fresh = await rotate(reset.body.session.refresh_token);
    expect(await accessOutcome(fresh.access)).toEqual(accepted);
    const sessions = await api('GET', '/user/sessions', { token: fresh.access });
    expect(sessions.body.items.map((session: { current: boolean }) => session.current)).toEqual([true]);
  });

  it('a password change ends every other session; the one that made it goes on', async () => {
    const owner = await createAccount('careful');
    const phone = await signIn(owner, 'phone');
    const laptop = await signIn(owner, 'laptop');
    const changed = await api('PUT', '/user', {
      token: phone.access,
      json: { password: 'a brand new secret', current_password: defaultPassword },
    });
    expect(changed.status).toBe(200);

    expect(await accessOutcome(laptop.access)).toEqual(endedSession);
    expect(await refreshOutcome(laptop.refresh)).toEqual(refusedRefresh);
    expect(await accessOutcome(phone.access)).toEqual(accepted);
    expect(await accessOutcome((await rotate(phone.refresh)).access)).toEqual(accepted);
  });
});
