// The e-mails an admin's buttons on Studio's Authentication page make Supabase Auth send, through the Send Email
// hook (functions/api/routes/send-email-hook.ts): each kind says what it is for and what to do next, and its
// link works on the stack (Auth's /verify behind the gateway, as supabase/stack/auth-env.ts sets the mailer
// URL paths). Requests as Studio sends them: apps/studio/pages/api/platform/auth/[ref]/invite.ts,
// magiclink.ts and recover.ts (POST /auth/v1/invite, /magiclink, /recover with { email } and the service key).
import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { mailsTo } from '../helpers/mailpit.ts';
import { openLink, studioAuth } from '../helpers/studio.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword, uniqueEmail } from '../helpers/users.ts';
import { waitOutMailInterval } from '../helpers/reset-codes.ts';

const mails = describe.skipIf(!authIsRunning);

/** The one e-mail titled `subject` that `email` got, once it is there. */
async function mailTitled(email: string, subject: string) {
  const received = (await mailsTo(email)).filter((mail) => mail.subject === subject);
  expect(received).toHaveLength(1);
  return received[0];
}

/** `account` with a verified authenticator app, enrolled and verified as the app does through the facade. */
async function withFactor(account: Account): Promise<void> {
  const enrolled = await api('POST', '/user/mfa/totp', {
    token: account.accessToken,
    json: { friendly_name: 'phone', current_password: defaultPassword },
  });
  expect(enrolled.status).toBe(200);
  const code = new TOTP({ secret: enrolled.body.secret }).generate();
  expect(
    (await api('POST', `/user/mfa/${enrolled.body.id}/verify`, { token: account.accessToken, json: { code } })).status,
  )
    .toBe(200);
}

/** The one e-mail `email` got, once it is there. */
async function onlyMail(email: string) {
  const received = await mailsTo(email);
  expect(received).toHaveLength(1);
  return received[0];
}

mails("Studio's Authentication page: the e-mails its buttons send", () => {
  it('Invite user: the link accepts and signs in; the invitee learns how to choose a password, and does', async () => {
    const email = uniqueEmail('invitee');
    expect((await studioAuth('POST', '/invite', { email })).status).toBe(200);
    const invitation = await onlyMail(email);
    expect(invitation.subject).toBe('You are invited to DayKeeper');
    expect(invitation.text).toContain('choose your password');
    expect(invitation.text).toContain('POST /auth/forget_password');
    // The invitation's link is Auth's /verify on this stack: it accepts the invitation and signs the invitee in.
    expect(invitation.link!.startsWith(`${stack.apiUrl}/auth/v1/verify?`)).toBe(true);
    const opened = await openLink(invitation.link!);
    expect([opened.status, opened.fragment.get('type')]).toEqual([303, 'invite']);
    expect((await api('GET', '/auth/user', { token: opened.fragment.get('access_token')! })).status).toBe(200);
    // Then, as the e-mail says: a password reset code, and the new password with it.
    expect((await api('POST', '/auth/forget_password', { json: { email } })).status).toBe(200);
    const [reset] = (await mailsTo(email)).filter((mail) => mail.subject === 'Your DayKeeper password reset code');
    const chosen = await api('POST', '/auth/reset_password', {
      json: { email, code: reset.code, password: 'my own invited password' },
    });
    expect([chosen.status, chosen.body.user?.email]).toEqual([200, email]);
    expect((await api('POST', '/auth/login', { json: { login: email, password: 'my own invited password' } })).status)
      .toBe(200);
  });

  it('Invite user, followed by the password reset alone (the link never opened), confirms the invitee too', async () => {
    const email = uniqueEmail('invitee');
    expect((await studioAuth('POST', '/invite', { email })).status).toBe(200);
    expect((await api('POST', '/auth/forget_password', { json: { email } })).status).toBe(200);
    const [reset] = (await mailsTo(email)).filter((mail) => mail.subject === 'Your DayKeeper password reset code');
    expect(
      (await api('POST', '/auth/reset_password', {
        json: { email, code: reset.code, password: 'my own invited password' },
      })).status,
    ).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: email, password: 'my own invited password' } })).status)
      .toBe(200);
  });

  it("Send magic link: a sign-in link and code, not the account-deletion code's text; the link signs in", async () => {
    const member = await createAccount('magic');
    expect((await studioAuth('POST', '/magiclink', { email: member.email })).status).toBe(200);
    const mail = await onlyMail(member.email);
    expect(mail.subject).toBe('Your DayKeeper sign-in link');
    expect(mail.text).not.toMatch(/delete|second factor/i);
    const opened = await openLink(mail.link!);
    expect([opened.status, opened.fragment.get('type')]).toEqual([303, 'magiclink']);
    expect((await api('GET', '/auth/user', { token: opened.fragment.get('access_token')! })).status).toBe(200);
  });

  it('Send password recovery: the reset code works in the facade, and its link opens a recovery session', async () => {
    const member = await createAccount('recover');
    expect((await studioAuth('POST', '/recover', { email: member.email })).status).toBe(200);
    const mail = await onlyMail(member.email);
    expect(mail.subject).toBe('Your DayKeeper password reset code');
    expect(mail.text).toContain('POST /auth/reset_password');
    const opened = await openLink(mail.link!);
    expect([opened.status, opened.fragment.get('type')]).toEqual([303, 'recovery']);
  });

  it("the facade's own one-time code keeps its text: it is for deleting the account or a lost second factor", async () => {
    const member = await createAccount('deleting');
    expect((await api('POST', '/auth/requestdeletecode', { token: member.accessToken })).status).toBe(200);
    const mail = await onlyMail(member.email);
    expect(mail.subject).toBe('Your DayKeeper one-time code');
    expect(mail.text).toContain('delete this account');
    expect(mail.link).toBeUndefined();
    const deleted = await api('DELETE', '/user', { token: member.accessToken, json: { code: mail.code } });
    expect(deleted.status).toBe(200);
  });
});

mails('every other kind Auth may send, with a link that works on the stack', () => {
  it('sign-up confirmation and e-mail change: code and link; reauthentication: a code only', async () => {
    const client = authClient();
    const email = uniqueEmail('kinds');
    expect((await client.signUp({ email, password: defaultPassword })).error).toBeNull();
    const signup = await onlyMail(email);
    expect(signup.text).toContain('confirm the account');
    const confirmed = await openLink(signup.link!);
    expect([confirmed.status, confirmed.fragment.get('type')]).toEqual([303, 'signup']);
    const token = confirmed.fragment.get('access_token')!;

    const newEmail = uniqueEmail('moved');
    const change = await api('PUT', '/user', { token, json: { email: newEmail, current_password: defaultPassword } });
    expect(change.status).toBe(200);
    const toNew = await onlyMail(newEmail);
    expect(toNew.subject).toBe('Confirm your new DayKeeper e-mail');
    expect(toNew.text).toContain(`to ${newEmail}`);
    expect((await openLink(toNew.link!)).status).toBe(303);

    await waitOutMailInterval({ email }); // Auth: a second between two e-mails of an account
    const reauthenticate = await fetch(`${stack.apiUrl}/auth/v1/reauthenticate`, {
      headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}` },
    });
    expect(reauthenticate.status).toBe(200);
    const [nonce] = (await mailsTo(email)).filter((mail) => mail.subject === 'Your DayKeeper confirmation code');
    expect([nonce.code?.length, nonce.link]).toEqual([6, undefined]);
  });

  it("admin generate_link's action links lead to Auth's /verify on the stack, not a 404", async () => {
    const member = await createAccount('linked');
    for (const type of ['magiclink', 'recovery']) {
      const generated = await studioAuth('POST', '/admin/generate_link', { type, email: member.email });
      expect(generated.status).toBe(200);
      expect(generated.body.action_link.startsWith(`${stack.apiUrl}/auth/v1/verify?`)).toBe(true);
      const opened = await openLink(generated.body.action_link);
      expect([type, opened.status, opened.fragment.get('type')]).toEqual([type, 303, type]);
    }
    const invited = await studioAuth('POST', '/admin/generate_link', { type: 'invite', email: uniqueEmail('linked') });
    expect((await openLink(invited.body.action_link)).fragment.has('access_token')).toBe(true);
  });
});

// Issue 53: each button's e-mail says what is true of the account it goes to (the Send Email hook asks
// private.account_mail_facts: whether its owner knows a password, whether it has a second factor).
mails("Studio's buttons: the e-mail says what is true of the account", () => {
  // apps/studio/pages/api/platform/auth/[ref]/confirmation.ts: "Send confirmation" is POST /auth/v1/invite { email }.
  it('Send confirmation to a sign-up that chose a password: confirm, then sign in with that password', async () => {
    const email = uniqueEmail('unconfirmed');
    expect((await authClient().signUp({ email, password: defaultPassword })).error).toBeNull();
    expect((await studioAuth('POST', '/invite', { email })).status).toBe(200);
    const mail = await mailTitled(email, 'Confirm your DayKeeper account');
    expect(mail.text).toContain('the one chosen at sign-up');
    expect(mail.text).not.toMatch(/no password/i);
    expect((await mailsTo(email, 0)).map((received) => received.subject)).not.toContain('You are invited to DayKeeper');
    const opened = await openLink(mail.link!);
    expect([opened.status, opened.fragment.get('type')]).toEqual([303, 'invite']);
    expect((await api('POST', '/auth/login', { json: { login: email, password: defaultPassword } })).status).toBe(200);
  });

  it('Send confirmation to a sign-up: its code confirms the account too, as the e-mail says', async () => {
    const email = uniqueEmail('unconfirmed');
    expect((await authClient().signUp({ email, password: defaultPassword })).error).toBeNull();
    expect((await studioAuth('POST', '/invite', { email })).status).toBe(200);
    const mail = await mailTitled(email, 'Confirm your DayKeeper account');
    expect((await api('POST', '/auth/confirm_email', { json: { email, code: mail.code } })).status).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: email, password: defaultPassword } })).status).toBe(200);
  });

  // magiclink.ts: "Send magic link" to an account not yet confirmed is Auth's sign-up confirmation again.
  it('Send magic link to an invitee not yet confirmed: the confirmation says the account has no password yet', async () => {
    const email = uniqueEmail('invitee');
    expect((await studioAuth('POST', '/invite', { email })).status).toBe(200);
    // Auth sends one confirmation a minute: as if the invitation were older.
    await asRoot`update auth.users set confirmation_sent_at = now() - interval '2 minutes' where email = ${email}`;
    expect((await studioAuth('POST', '/magiclink', { email })).status).toBe(200);
    const mail = await mailTitled(email, 'Confirm your DayKeeper account');
    expect(mail.text).toContain('no password yet');
    expect(mail.text).toContain('POST /auth/forget_password');
    expect(mail.text).not.toContain('sign in with your password');
  });

  it('Send magic link to an account with a second factor says the authenticator is asked next', async () => {
    const member = await createAccount('magicfactor');
    await withFactor(member);
    expect((await studioAuth('POST', '/magiclink', { email: member.email })).status).toBe(200);
    const mail = await mailTitled(member.email, 'Your DayKeeper sign-in link');
    expect(mail.text).toContain('authenticator app');
    const opened = await openLink(mail.link!);
    expect([opened.status, opened.fragment.get('type')]).toEqual([303, 'magiclink']);
    // As the e-mail says: the link's session has yet to give the authenticator's code.
    const factors = await api('GET', '/user/mfa', { token: opened.fragment.get('access_token')! });
    expect(factors.body).toMatchObject({ aal: 'aal1', factors: [{ status: 'verified' }] });
  });

  it('Send magic link to an account without a factor keeps the plain text', async () => {
    const member = await createAccount('magicplain');
    expect((await studioAuth('POST', '/magiclink', { email: member.email })).status).toBe(200);
    const mail = await mailTitled(member.email, 'Your DayKeeper sign-in link');
    expect(mail.text).not.toContain('authenticator');
  });

  it('Send password recovery to an account with a second factor: the new password takes the authenticator too', async () => {
    const member = await createAccount('recoverfactor');
    await withFactor(member);
    expect((await studioAuth('POST', '/recover', { email: member.email })).status).toBe(200);
    const mail = await mailTitled(member.email, 'Your DayKeeper password reset code');
    expect(mail.text).toContain("authenticator's code");
    expect(mail.text).not.toContain('choose a password there:');
    // Without the authenticator's code, the reset code alone sets no password, as the e-mail says.
    const alone = await api('POST', '/auth/reset_password', {
      json: { email: member.email, code: mail.code, password: 'a new password here' },
    });
    expect(alone.status).toBe(403);
  });
});
