// The threat model of docs/ACCOUNTS-SECURITY.md, "What an attacker can do": one test per row and column, through
// each door that reaches the cell: the facade, Supabase Auth's own endpoints (/auth/v1, as supabase-js calls them)
// and PostgREST (/rest/v1, supabase-js from() and rpc()).
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { latestCode, latestUndoCode, mailsTo } from '../helpers/mailpit.ts';
import { resetCode } from '../helpers/reset-codes.ts';
import {
  authCall,
  codeAged,
  codeOf,
  codeSession,
  googleAccount,
  googleSession,
  logIn,
  rest,
  signsInWith,
  stillWorks,
  withFactor,
} from '../helpers/session-kinds.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { defaultPassword, uniqueEmail } from '../helpers/users.ts';

describe.skipIf(!authIsRunning)('what an attacker can do (docs/ACCOUNTS-SECURITY.md)', () => {
  it('(a) an access token: acts as the user on every door until the session ends', async () => {
    const owner = await createAccount('owner');
    const stolen = (await logIn(owner)).body.session.access_token;
    expect(await stillWorks(stolen)).toEqual([200, 200]);
    const { error } = await rest(stolen).from('posts').insert({ body: 'not me', emotion: 50, privacy: 'public' });
    expect(error).toBeNull();
    expect((await authCall('GET', '/user', { token: stolen })).status).toBe(200);
  });

  it('(a) an access token: cannot change the password or the e-mail, add an authenticator or delete the account', async () => {
    const owner = await createAccount('owner');
    const stolen = (await logIn(owner)).body.session.access_token;
    // The password: the current one is asked, by the facade and by Auth itself.
    expect(await api('PUT', '/user', { token: stolen, json: { password: 'the thief now' } }))
      .toMatchObject({ status: 400, body: { error: { code: 'current_password_required' } } });
    expect(await authCall('PUT', '/user', { token: stolen, json: { password: 'the thief now' } }))
      .toMatchObject({ status: 400, body: { code: 'current_password_required' } });
    // The e-mail: Auth sends a code to both addresses; the thief's own address's code changes nothing.
    const thiefAddress = uniqueEmail('thief');
    const since = new Date();
    expect((await authCall('PUT', '/user', { token: stolen, json: { email: thiefAddress } })).status).toBe(200);
    const halfway = await authCall('POST', '/verify', {
      json: { type: 'email_change', email: thiefAddress, token: await latestCode(thiefAddress, since) },
    });
    expect(halfway.status).toBe(200);
    expect(await asRoot`select 1 from auth.users where id = ${owner.id} and email = ${owner.email}`).toHaveLength(1);
    // An authenticator: the owner's proof is asked by the facade, and by the database's hook on Auth's own door.
    expect((await api('POST', '/user/mfa/totp', { token: stolen, json: {} })).status).toBe(400);
    const enrolled = await authCall('POST', '/factors', {
      token: stolen,
      json: { factor_type: 'totp', friendly_name: 'thief' },
    });
    const challenge = await authCall('POST', `/factors/${enrolled.body.id}/challenge`, { token: stolen, json: {} });
    const verify = await authCall('POST', `/factors/${enrolled.body.id}/verify`, {
      token: stolen,
      json: { challenge_id: challenge.body.id, code: codeOf(enrolled.body.totp.secret) },
    });
    expect(verify.status).toBe(403);
    expect(verify.body.message).toMatch(/^owner_proof_required: /);
    // The account: an e-mailed code through the facade; no door for a user's token elsewhere.
    expect((await api('DELETE', '/user', { token: stolen, json: { code: '123456' } })).status).toBe(400);
    expect((await authCall('DELETE', `/admin/users/${owner.id}`, { token: stolen })).status).toBe(403);
    const { error } = await rest(stolen).from('profiles').delete().eq('id', owner.id);
    expect(error?.code).toBe('42501');
    expect(await asRoot`select 1 from public.profiles where id = ${owner.id}`).toHaveLength(1);
    expect((await logIn(owner)).status).toBe(200);
  });

  it('(a) an access token of a session begun with an e-mailed code: sets a password within 10 minutes of the code, once', async () => {
    const owner = await createAccount('owner');
    // Fresh: the code proved the mailbox just now (Supabase's documented reset by code); once only.
    const fresh = await codeSession(owner);
    expect((await authCall('PUT', '/user', { token: fresh.access, json: { password: 'chosen by code' } })).status)
      .toBe(200);
    expect(await authCall('PUT', '/user', { token: fresh.access, json: { password: 'and once more' } }))
      .toMatchObject({ status: 400, body: { code: 'current_password_required' } });
    expect(await signsInWith(owner, 'chosen by code')).toBe(200);

    // Stolen later: the token alone sets nothing, before or after a refresh, and every other session lives on.
    const stolen = await codeSession(owner);
    const laptop = (await logIn(owner, 'chosen by code')).body.session.access_token;
    await codeAged(stolen.sessionId, 11);
    const refused = await authCall('PUT', '/user', { token: stolen.access, json: { password: 'the thief now' } });
    expect(refused.status).not.toBe(200);
    expect(await signsInWith(owner, 'the thief now')).toBe(401);
    expect(await stillWorks(laptop)).toEqual([200, 200]);
    const refreshed = await authCall('POST', '/token?grant_type=refresh_token', {
      json: { refresh_token: stolen.refresh },
    });
    expect(refreshed.status).toBe(200);
    expect(await authCall('PUT', '/user', { token: refreshed.body.access_token, json: { password: 'the thief now' } }))
      .toMatchObject({ status: 400, body: { code: 'current_password_required' } });
    expect(await signsInWith(owner, 'chosen by code')).toBe(200);
  });

  it('(a) an access token of an account without a password (a Google sign-up): cannot set a first one', async () => {
    const owner = await googleAccount();
    const [{ hash }] = await asRoot`select encrypted_password as hash from auth.users where id = ${owner.id}`;
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    const session = await googleSession(owner);
    expect(await authCall('PUT', '/user', { token: session.access, json: { password: 'the thief now' } }))
      .toMatchObject({ status: 400, body: { code: 'current_password_required' } });
    expect(await signsInWith(owner, 'the thief now')).toBe(401);
    // The owner chooses a first password as a forgotten one, with the mailbox.
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'chosen by the owner' },
    });
    expect(reset.status).toBe(200);
    expect(await signsInWith(owner, 'chosen by the owner')).toBe(200);
  });

  it('(a) an access token: the owner signs out everywhere from any session, and every door refuses it', async () => {
    const owner = await createAccount('owner');
    const stolen = (await logIn(owner)).body.session.access_token;
    expect((await api('POST', '/auth/logout', { token: owner.accessToken, json: { all: true } })).status).toBe(200);
    expect(await stillWorks(stolen)).toEqual([401, 401]);
    expect((await authCall('GET', '/user', { token: stolen })).status).toBe(403);
  });

  it('(b) a refresh token: mints tokens for its session, on every door, until the owner signs out everywhere', async () => {
    const owner = await createAccount('owner');
    const session = (await logIn(owner)).body.session;
    const refresh = (token: string) =>
      authCall('POST', '/token?grant_type=refresh_token', { json: { refresh_token: token } });
    const stolen = await refresh(session.refresh_token);
    expect(stolen.status).toBe(200);
    expect(await stillWorks(stolen.body.access_token)).toEqual([200, 200]);
    const again = await api('POST', '/auth/refresh', { json: { refresh_token: stolen.body.refresh_token } });
    expect(again.status).toBe(200);

    // Signing out everywhere ends the session: its access tokens and refresh tokens, on every door.
    expect((await api('POST', '/auth/logout', { token: owner.accessToken, json: { all: true } })).status).toBe(200);
    expect(await stillWorks(again.body.session.access_token)).toEqual([401, 401]);
    expect((await api('POST', '/auth/refresh', { json: { refresh_token: again.body.session.refresh_token } })).status)
      .toBe(401);
    expect((await refresh(again.body.session.refresh_token)).status).toBe(400);
  });

  it('(c) the password, no second factor: the thief may change it; the owner resets it by e-mail, and the thief is out', async () => {
    const owner = await createAccount('owner');
    const thief = (await logIn(owner)).body.session.access_token;
    expect(
      (await authCall('PUT', '/user', {
        token: thief,
        json: { password: 'the thief now', current_password: defaultPassword },
      })).status,
    )
      .toBe(200);
    expect((await logIn(owner)).status).toBe(401);

    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'mine again' },
    });
    expect(reset.status).toBe(200);
    expect(await stillWorks(thief)).toEqual([401, 401]);
    expect((await logIn(owner, 'the thief now')).status).toBe(401);
    expect((await logIn(owner, 'mine again')).status).toBe(200);
  });

  it('(c) the password, with a second factor: an aal1 session reads and does only what anybody may, on every door', async () => {
    const owner = await createAccount('owner', { isPrivate: true });
    const friend = await createAccount('friend');
    await asRoot`insert into public.follows (follower_id, followee_id, status) values (${friend.id}, ${owner.id}, 'accepted')`;
    const own = await api('POST', '/post/create', {
      token: owner.accessToken,
      json: { body: 'for my followers', privacy: 'private' },
    });
    await withFactor(owner);
    const login = await logIn(owner);
    const thief = login.body.session.access_token;
    expect([login.body.profile, login.body.user.email, login.body.mfa.step_up_required]).toEqual([null, null, true]);
    const stepUp = { status: 403, body: { error: { code: 'second_factor_required' } } };
    // The facade: no post, no comment, no follow, no profile of its own; the owner's own private post is hidden.
    expect(await api('POST', '/post/create', { token: thief, json: { body: 'as the owner' } })).toMatchObject(stepUp);
    expect(await api('POST', `/${friend.username}/follow`, { token: thief, json: {} })).toMatchObject(stepUp);
    expect(await api('GET', '/auth/user', { token: thief })).toMatchObject(stepUp);
    expect((await api('GET', `/post/${own.body.id}`, { token: thief })).status).toBe(404);
    // PostgREST and rpc(): the rows anybody may see, no write, and rpc() refuses as the facade does.
    const sdk = rest(thief);
    expect((await sdk.from('posts').select('id').eq('id', own.body.id)).data).toEqual([]);
    expect((await sdk.from('follows').select('follower_id').eq('followee_id', owner.id)).data).toEqual([]);
    const inserted = await sdk.from('posts').insert({ body: 'as the owner', privacy: 'public' });
    expect(inserted.error).not.toBeNull();
    expect(await asRoot`select 1 from public.posts where author_id = ${owner.id} and body = 'as the owner'`)
      .toHaveLength(0);
    const me = await sdk.rpc('me');
    expect({ status: me.status, hint: me.error?.hint }).toEqual({ status: 403, hint: 'second_factor_required' });
    // What it may do: its factors and sessions, sign out, and a factor recovery.
    expect((await api('GET', '/user/mfa', { token: thief })).status).toBe(200);
    expect((await api('GET', '/user/sessions', { token: thief })).status).toBe(200);
    expect((await sdk.rpc('factor_recovery')).error).toBeNull();
  });

  it('(c) the password, with a second factor: an aal1 session changes nothing that needs the factor, on any door', async () => {
    const owner = await createAccount('owner');
    const { id } = await withFactor(owner);
    const thief = (await logIn(owner)).body.session.access_token;
    const refusals = [
      await api('PUT', '/user', {
        token: thief,
        json: { password: 'the thief now', current_password: defaultPassword },
      }),
      await api('PUT', '/user', {
        token: thief,
        json: { email: uniqueEmail('thief'), current_password: defaultPassword },
      }),
      await api('DELETE', '/user', { token: thief, json: { code: '123456' } }),
      await api('DELETE', `/user/mfa/${id}`, { token: thief }),
      await api('POST', '/user/mfa/totp', {
        token: thief,
        json: { friendly_name: 'thief phone', current_password: defaultPassword },
      }),
      await api('DELETE', '/user/mfa/recovery', { token: thief }),
    ];
    for (const refused of refusals) {
      expect(refused).toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    }
    expect(
      await authCall('PUT', '/user', {
        token: thief,
        json: { password: 'the thief now', current_password: defaultPassword },
      }),
    )
      .toMatchObject({ body: { code: 'insufficient_aal' } });
    expect(await authCall('POST', '/factors', { token: thief, json: { factor_type: 'totp', friendly_name: 'thief' } }))
      .toMatchObject({ status: 403, body: { code: 'insufficient_aal' } });
    expect((await authCall('DELETE', `/factors/${id}`, { token: thief })).body.code).toBe('insufficient_aal');
    const cancel = await rest(thief).rpc('cancel_factor_recovery');
    expect({ status: cancel.status, hint: cancel.error?.hint }).toEqual({
      status: 403,
      hint: 'second_factor_required',
    });
    expect((await logIn(owner)).status).toBe(200);
  });

  it('(c) the password, no second factor: the notice of a new password undoes it from the mailbox, and the thief is out', async () => {
    const owner = await createAccount('owner');
    const thief = (await logIn(owner)).body.session.access_token;
    const since = new Date();
    const changed = await authCall('PUT', '/user', {
      token: thief,
      json: { password: 'the thief now', current_password: defaultPassword },
    });
    expect(changed.status).toBe(200);
    const code = await latestUndoCode(owner.email, since);
    // The link opens a page; only its button undoes (a mail scanner following links changes nothing).
    const page = await fetch(`${stack.functionsUrl}/auth/undo?code=${code}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(code);
    expect(await signsInWith(owner, 'the thief now')).toBe(200);

    const undone = await api('POST', '/auth/undo', { json: { code } });
    expect(undone).toMatchObject({ status: 200, body: { undone: 'password_changed', email: owner.email } });
    expect(await stillWorks(thief)).toEqual([401, 401]);
    expect(await signsInWith(owner, 'the thief now')).toBe(401);
    expect(await signsInWith(owner, defaultPassword)).toBe(401);
    expect(await api('POST', '/auth/undo', { json: { code } }))
      .toMatchObject({ status: 404, body: { error: { code: 'undo_code_invalid' } } });
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'mine again' },
    });
    expect(reset.status).toBe(200);
    expect(await signsInWith(owner, 'mine again')).toBe(200);
  });

  it('(c) the password, no second factor: an authenticator the thief adds goes with the undo of its notice', async () => {
    const owner = await createAccount('owner');
    const thief = (await logIn(owner)).body.session.access_token;
    const since = new Date();
    const enrolled = await api('POST', '/user/mfa/totp', { token: thief, json: { current_password: defaultPassword } });
    const verified = await api('POST', `/user/mfa/${enrolled.body.id}/verify`, {
      token: thief,
      json: { code: codeOf(enrolled.body.secret) },
    });
    expect(verified.status).toBe(200);
    const code = await latestUndoCode(owner.email, since);
    expect((await api('POST', '/auth/undo', { json: { code } })).body.undone).toBe('mfa_factor_enrolled');
    expect(await asRoot`select 1 from auth.mfa_factors where user_id = ${owner.id}`).toHaveLength(0);
    expect(await stillWorks(verified.body.session.access_token)).toEqual([401, 401]);
  });

  it('(d) the password and the mailbox, no second factor: the notice to the previous address takes the e-mail back', async () => {
    const owner = await createAccount('owner');
    const thief = (await logIn(owner)).body.session.access_token;
    const thiefAddress = uniqueEmail('thief');
    const asked = new Date();
    expect((await authCall('PUT', '/user', { token: thief, json: { email: thiefAddress } })).status).toBe(200);
    const [current, next] = [await latestCode(owner.email, asked), await latestCode(thiefAddress, asked)];
    const since = new Date();
    await authCall('POST', '/verify', { json: { type: 'email_change', email: owner.email, token: current } });
    await authCall('POST', '/verify', { json: { type: 'email_change', email: thiefAddress, token: next } });
    expect(await asRoot`select 1 from auth.users where id = ${owner.id} and email = ${thiefAddress}`).toHaveLength(1);

    const code = await latestUndoCode(owner.email, since);
    expect(await api('POST', '/auth/undo', { json: { code } })).toMatchObject({
      status: 200,
      body: { undone: 'email_changed', email: owner.email, email_restored: true },
    });
    expect(await asRoot`select 1 from auth.users where id = ${owner.id} and email = ${owner.email}`).toHaveLength(1);
    expect(await stillWorks(thief)).toEqual([401, 401]);
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'mine again' },
    });
    expect(reset.status).toBe(200);
  });

  it('(d) the password and the mailbox, with a second factor: only the 72-hour removal, which the owner sees and cancels', async () => {
    const owner = await createAccount('owner');
    const { secret } = await withFactor(owner);
    const noFactor = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'the thief now' },
    });
    expect(noFactor).toMatchObject({ status: 403, body: { error: { code: 'second_factor_required' } } });
    const code = await resetCode(owner);
    const asked = new Date();
    const started = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code, password: 'the thief now', lost_authenticator: true },
      headers: { 'User-Agent': 'ThiefBrowser/1.0' },
    });
    expect(started.status).toBe(202);
    expect((await logIn(owner, 'the thief now')).status).toBe(401);
    // The mailbox is told at once, with the thief's device, and an undo.
    const notice = (await mailsTo(owner.email)).find((mail) => mail.subject.includes('removal of your authenticator'));
    expect(notice?.text).toContain('device: ThiefBrowser/1.0');
    expect(await latestUndoCode(owner.email, asked)).toMatch(/^[0-9a-f]{32}$/);

    // The owner sees it on signing in, steps up and cancels it, then changes the password the thief knows.
    const login = await logIn(owner);
    expect(login.body.mfa.recovery).toEqual(started.body);
    const aal2 = (await api('POST', `/user/mfa/${login.body.mfa.factors[0].id}/verify`, {
      token: login.body.session.access_token,
      json: { code: codeOf(secret) },
    })).body.session.access_token;
    const cancelledAt = new Date();
    expect((await api('DELETE', '/user/mfa/recovery', { token: aal2 })).status).toBe(200);
    expect(await latestUndoCode(owner.email, cancelledAt)).toMatch(/^[0-9a-f]{32}$/);
    expect(
      (await api('PUT', '/user', { token: aal2, json: { password: 'mine only', current_password: defaultPassword } }))
        .status,
    ).toBe(200);
    expect((await logIn(owner, defaultPassword)).status).toBe(401);
  });

  it('(d) the password and the mailbox, no second factor: a takeover (the reset ends every other session)', async () => {
    const owner = await createAccount('owner');
    const ownerSession = (await logIn(owner)).body.session.access_token;
    const reset = await api('POST', '/auth/reset_password', {
      json: { email: owner.email, code: await resetCode(owner), password: 'the thief now' },
    });
    expect(reset.status).toBe(200);
    expect(await stillWorks(ownerSession)).toEqual([401, 401]);
    expect((await logIn(owner)).status).toBe(401);
  });

  it('(e) the authenticator alone: no door takes a code without a session, and a code works once', async () => {
    const owner = await createAccount('owner');
    const { id, secret } = await withFactor(owner);
    expect((await api('POST', `/user/mfa/${id}/verify`, { json: { code: codeOf(secret) } })).status).toBe(401);
    expect(await authCall('POST', `/factors/${id}/challenge`, { json: {} })).toMatchObject({
      status: 403,
      body: { code: 'bad_jwt' },
    });

    const aal1 = (await logIn(owner)).body.session.access_token;
    const code = codeOf(secret);
    expect((await api('POST', `/user/mfa/${id}/verify`, { token: aal1, json: { code } })).status).toBe(200);
    const second = (await logIn(owner)).body.session.access_token;
    const challenge = await authCall('POST', `/factors/${id}/challenge`, { token: second, json: {} });
    const replayed = await authCall('POST', `/factors/${id}/verify`, {
      token: second,
      json: { challenge_id: challenge.body.id, code },
    });
    expect(replayed.status).toBe(409);
    expect(replayed.body.message).toMatch(/^code_already_used: /);
  });
});
