// Sessions and devices (supabase/schemas/27_sessions.sql): list where you are signed in, end one, end all but
// this one; an ended session's tokens are refused at once by the facade, by PostgREST and by Auth's refresh.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { refusal, signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

/** Signs `account` in again from a device that names itself `userAgent`: a session of its own. */
async function signIn(account: Account, userAgent: string): Promise<{ access: string; refresh: string; id: string }> {
  const answer = await api('POST', '/auth/login', {
    json: { login: account.username, password: defaultPassword },
    headers: { 'User-Agent': userAgent },
  });
  expect(answer.status).toBe(200);
  const access = answer.body.session.access_token;
  const { session_id: id } = JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString());
  return { access, refresh: answer.body.session.refresh_token, id };
}

const sessionsOf = async (token: string) =>
  (await api('GET', '/user/sessions', { token })).body.items as Array<Record<string, unknown>>;

describe.skipIf(!authIsRunning)('sessions', () => {
  it("lists where the caller is signed in, the current one marked, and nobody else's", async () => {
    const owner = await createAccount('owner');
    const phone = await signIn(owner, 'DayKeeper phone');
    const listed = await sessionsOf(phone.access);
    expect(listed).toHaveLength(2);
    expect(listed.find((s) => s.current)).toMatchObject({ id: phone.id, user_agent: 'DayKeeper phone', aal: 'aal1' });
    expect(listed.filter((s) => s.current)).toHaveLength(1);
    expect(listed.map((s) => s.id)).toContain(owner.claims.session_id);

    const other = await createAccount('other');
    expect((await sessionsOf(other.accessToken)).map((s) => s.id)).toEqual([other.claims.session_id]);
    expect((await api('GET', '/user/sessions')).status).toBe(401);
  });

  it('ends one session: its access token is refused by the facade and PostgREST, its refresh token by Auth; the others go on', async () => {
    const owner = await createAccount('owner');
    const sdk = await signedInSdk(owner); // a third session, as a supabase-js client holds it
    const laptop = await signIn(owner, 'DayKeeper laptop');
    expect((await sdk.from('posts').select('id').limit(1)).status).toBe(200);
    const sdkSession = (await sessionsOf(laptop.access)).find((s) =>
      s.id !== laptop.id && s.id !== owner.claims.session_id
    )!;

    for (const id of [owner.claims.session_id, sdkSession.id]) {
      expect(await api('DELETE', `/user/sessions/${id}`, { token: laptop.access })).toMatchObject({
        status: 200,
        body: { ended: 1 },
      });
    }
    expect((await api('GET', '/auth/user', { token: owner.accessToken })).status).toBe(401);
    expect(refusal(await sdk.from('posts').select('id').limit(1))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
    const laptopTwin = await signIn(owner, 'DayKeeper laptop 2');
    await api('DELETE', `/user/sessions/${laptop.id}`, { token: laptopTwin.access });
    expect((await api('POST', '/auth/refresh', { json: { refresh_token: laptop.refresh } })).status).toBe(401);
    expect((await api('GET', '/auth/user', { token: laptopTwin.access })).status).toBe(200);
  });

  it("answers one 404 for another account's session and for none at all, and ends nothing", async () => {
    const [owner, stranger] = await Promise.all([createAccount('owner'), createAccount('stranger')]);
    for (const id of [stranger.claims.session_id as string, randomUUID()]) {
      const answer = await api('DELETE', `/user/sessions/${id}`, { token: owner.accessToken });
      expect(answer).toMatchObject({ status: 404, body: { error: { code: 'session_not_found' } } });
    }
    expect((await api('GET', '/auth/user', { token: stranger.accessToken })).status).toBe(200);
    expect((await api('DELETE', '/user/sessions/not-a-uuid', { token: owner.accessToken })).status).toBe(400);
  });

  it("signs out everywhere else; with a second factor an aal1 session may too, as through Auth's own logout", async () => {
    const owner = await createAccount('owner');
    const [tablet, phone] = [await signIn(owner, 'tablet'), await signIn(owner, 'phone')];
    expect(await api('POST', '/user/sessions/end_others', { token: phone.access })).toMatchObject({
      status: 200,
      body: { ended: 2 },
    });
    for (const token of [owner.accessToken, tablet.access]) {
      expect((await api('GET', '/auth/user', { token })).status).toBe(401);
    }
    expect((await sessionsOf(phone.access)).map((s) => s.id)).toEqual([phone.id]);

    // A verified TOTP factor (as Auth's MFA verify leaves it): ending sessions locks nobody out, so an aal1 session
    // may still end one, or all others (docs/PRODUCT.md, "Sessions"), as Auth's logout lets it.
    await asRoot`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
      values (${randomUUID()}, ${owner.id}, 'phone app', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP')`;
    const [laptop, desk] = [await signIn(owner, 'laptop'), await signIn(owner, 'desk')];
    expect((await api('DELETE', `/user/sessions/${phone.id}`, { token: laptop.access })).status).toBe(200);
    expect((await api('GET', '/auth/user', { token: phone.access })).status).toBe(401);
    expect(await api('POST', '/user/sessions/end_others', { token: laptop.access })).toMatchObject({
      status: 200,
      body: { ended: 1 },
    });
    expect((await api('GET', '/auth/user', { token: desk.access })).status).toBe(401);
    const [watch, car] = [await signIn(owner, 'watch'), await signIn(owner, 'car')];
    const others = await fetch(`${stack.apiUrl}/auth/v1/logout?scope=others`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, Authorization: `Bearer ${watch.access}` },
    });
    expect(others.status).toBe(204);
    for (const token of [laptop.access, car.access]) {
      expect((await api('GET', '/auth/user', { token })).status).toBe(401);
    }
    expect((await api('GET', '/user/sessions', { token: watch.access })).status).toBe(200);
    // A session that is not the account's stays out of reach either way.
    const stranger = await createAccount('stranger');
    expect((await api('DELETE', `/user/sessions/${watch.id}`, { token: stranger.accessToken })).status).toBe(404);
  });
});
