// Code e-mails a stranger cannot spend (docs/ACCOUNTS-SECURITY.md, "Code e-mails"): whatever door asks, Supabase
// Auth's own /recover, /otp, /resend, /signup or the facade, Auth's Send Email hook sends at most one e-mail of a
// kind to an account a minute, and one client address spends only its share of the project's hourly budget.
// Requests go through the gateway from distinct loopback addresses, as clients with many addresses would send them.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api, apiFrom, authFrom, sourceAddresses } from '../helpers/http.ts';
import { mailsTo } from '../helpers/mailpit.ts';
import { registerAndConfirm } from '../helpers/registration.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword, uniqueEmail } from '../helpers/users.ts';
import { waitOutMailInterval } from '../helpers/reset-codes.ts';

const auth = describe.skipIf(!authIsRunning);

const subjects = {
  confirmation: 'Your DayKeeper sign-up code',
  recovery: 'Your DayKeeper password reset code',
  magicLink: 'Your DayKeeper sign-in link',
  emailChange: 'Confirm your new DayKeeper e-mail',
  reauthentication: 'Your DayKeeper confirmation code',
  invite: 'You are invited to DayKeeper',
};

/** The subjects of the e-mails `email` received, sorted. */
async function subjectsTo(email: string): Promise<string[]> {
  return (await mailsTo(email)).map((mail) => mail.subject).sort();
}

auth('a flood of code requests for one account', () => {
  it("sends one e-mail of each kind a minute, whichever of Auth's doors and the facade's 25 clients knock on at once", async () => {
    const victim = await createAccount('victim');
    const sources = sourceAddresses(25);
    // Auth answers the refused ones 429; the facade its usual 200, whatever happened. The test stack's Auth lets
    // a reset and a one-time code (one token in Auth) go a second apart: each round waits for it.
    const recover = await Promise.all(
      sources.map((source) => authFrom(source, 'POST', '/recover', { email: victim.email })),
    );
    await waitOutMailInterval(victim);
    const otp = await Promise.all(
      sources.map((source) => authFrom(source, 'POST', '/otp', { email: victim.email, create_user: false })),
    );
    const facade = await Promise.all(
      sources.flatMap((source) => [
        apiFrom(source, 'POST', '/auth/forget_password', { json: { email: victim.email } }),
        // The facade's sign-in code is Auth's magic link: the slot the /otp round took.
        apiFrom(source, 'POST', '/auth/login_code', { json: { email: victim.email } }),
      ]),
    );
    expect([recover, otp].map((answers) => answers.map((answer) => answer.status).sort().join()))
      .toEqual([recover, otp].map(() => [200, ...Array(24).fill(429)].join()));
    expect(new Set(facade.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(await subjectsTo(victim.email)).toEqual([subjects.magicLink, subjects.recovery].sort());
    // Within the minute, another try through any door sends nothing more.
    expect((await authFrom('127.0.0.40', 'POST', '/recover', { email: victim.email })).status).toBe(429);
    expect((await api('POST', '/auth/requestdeletecode', { token: victim.accessToken })).status).toBe(429);
    expect(await subjectsTo(victim.email)).toHaveLength(2);
  });

  it('sends one sign-up code a minute however /signup and /resend are repeated', async () => {
    const email = uniqueEmail('pending');
    expect(
      (await authFrom('127.0.0.2', 'POST', '/signup', {
        email,
        password: defaultPassword,
        data: { username: `p_${Date.now().toString(36)}` },
      })).status,
    ).toBe(200);
    await Promise.all(
      sourceAddresses(20).flatMap((source) => [
        authFrom(source, 'POST', '/resend', { type: 'signup', email }),
        authFrom(source, 'POST', '/signup', { email, password: defaultPassword }),
        apiFrom(source, 'POST', '/auth/resend_code', { json: { email } }),
      ]),
    );
    expect(await subjectsTo(email)).toEqual([subjects.confirmation]);
  });

  it('sends a new address one e-mail-change code a minute, however many accounts ask to move to it', async () => {
    const bystander = uniqueEmail('bystander');
    const movers = await Promise.all(Array.from({ length: 4 }, (_, i) => createAccount(`mover${i}`)));
    const asked = await Promise.all(
      movers.map((mover, i) => authFrom(`127.0.0.${80 + i}`, 'PUT', '/user', { email: bystander }, mover.accessToken)),
    );
    expect(asked.map((answer) => answer.status).sort()).toEqual([200, 429, 429, 429]);
    expect(await subjectsTo(bystander)).toEqual([subjects.emailChange]);
  });

  it("still lets another account's code out at once", async () => {
    const [victim, bystander] = [await createAccount('victim'), await createAccount('bystander')];
    await Promise.all(
      sourceAddresses(10).map((source) => authFrom(source, 'POST', '/recover', { email: victim.email })),
    );
    expect((await authFrom('127.0.0.2', 'POST', '/recover', { email: bystander.email })).status).toBe(200);
    expect(await subjectsTo(bystander.email)).toEqual([subjects.recovery]);
  });
});

auth('the hourly budgets', () => {
  let kept: { scope: string; max_mails: number }[] = [];

  beforeAll(async () => {
    kept = await asRoot`select scope, max_mails from private.mail_limits`;
    // Far enough from the hour's turn, when the counts start again.
    const [{ seconds }] =
      await asRoot`select extract(epoch from date_trunc('hour', now()) + interval '1 hour' - now())::int as seconds`;
    if (seconds < 30) await new Promise((resolve) => setTimeout(resolve, (seconds + 1) * 1000));
    // Three e-mails an hour per address, and room for six more in the project's hour than the suite has sent.
    const [{ sent }] = await asRoot`
      select coalesce((select mails from private.mail_counts where key = 'project' and window_start = date_trunc('hour', now())), 0) as sent`;
    await asRoot`update private.mail_limits set max_mails = case scope when 'address' then 3 else ${sent + 6} end`;
  });

  afterAll(async () => {
    for (const limit of kept) {
      await asRoot`update private.mail_limits set max_mails = ${limit.max_mails} where scope = ${limit.scope}`;
    }
  });

  it('stop one address at its share, not another address, and the project at its budget', async () => {
    const accounts = await Promise.all(Array.from({ length: 8 }, (_, i) => createAccount(`budget${i}`)));
    const recover = (source: string, i: number) => authFrom(source, 'POST', '/recover', { email: accounts[i].email });

    // One address asks for five accounts' codes: three go out, the rest are refused with the reason.
    const greedy = [];
    for (let i = 0; i < 5; i++) greedy.push(await recover('127.0.0.50', i));
    expect(greedy.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(greedy[3].body.msg).toMatch(/from your address this hour/);
    expect((await mailsTo(accounts[3].email, 0)).length).toBe(0);

    // Another address is not stopped by it: a code goes out at once.
    expect((await recover('127.0.0.51', 3)).status).toBe(200);
    expect(await subjectsTo(accounts[3].email)).toEqual([subjects.recovery]);

    // The project's budget: two more go out in all, then nobody's (a third address, within its own share).
    expect((await recover('127.0.0.52', 4)).status).toBe(200);
    expect((await recover('127.0.0.52', 5)).status).toBe(200);
    const over = await recover('127.0.0.53', 6);
    expect([over.status, over.body.msg]).toEqual([429, 'Too many e-mails requested this hour: try again later']);
    expect((await mailsTo(accounts[6].email)).length).toBe(0);
  });
});

auth('the sign-ups slice of the hour', () => {
  let kept: { scope: string; max_mails: number }[] = [];

  beforeAll(async () => {
    kept = await asRoot`select scope, max_mails from private.mail_limits`;
    const [{ seconds }] =
      await asRoot`select extract(epoch from date_trunc('hour', now()) + interval '1 hour' - now())::int as seconds`;
    if (seconds < 30) await new Promise((resolve) => setTimeout(resolve, (seconds + 1) * 1000));
    // Room for one more sign-up code than the suite has sent this hour; the project's budget far away.
    const [{ sent }] = await asRoot`
      select coalesce((select mails from private.mail_counts where key = 'project:signups' and window_start = date_trunc('hour', now())), 0) as sent`;
    await asRoot`update private.mail_limits set max_mails = ${sent + 1} where scope = 'signups'`;
  });

  afterAll(async () => {
    for (const limit of kept) {
      await asRoot`update private.mail_limits set max_mails = ${limit.max_mails} where scope = ${limit.scope}`;
    }
  });

  it('a flood of sign-ups to fresh addresses stops at its slice; an existing account still gets its reset code', async () => {
    const signUp = (source: string) =>
      authFrom(source, 'POST', '/signup', {
        email: uniqueEmail('flood'),
        password: defaultPassword,
        data: { username: `f_${crypto.randomUUID().slice(0, 8)}` },
      });
    expect((await signUp('127.0.0.90')).status).toBe(200);
    const over = await signUp('127.0.0.91');
    expect([over.status, over.body.msg]).toEqual([429, 'Too many sign-ups this hour: try again later']);
    const owner = await createAccount('owner');
    expect((await authFrom('127.0.0.92', 'POST', '/recover', { email: owner.email })).status).toBe(200);
    expect(await subjectsTo(owner.email)).toEqual([subjects.recovery]);
  });
});

auth('every e-mail Auth sends through the hook', () => {
  it('goes out with its template and a code that works: sign-up, recovery, one-time code, reauthentication, invite', async () => {
    const client = authClient();
    const email = uniqueEmail('kinds');
    expect((await client.signUp({ email, password: defaultPassword })).error).toBeNull();
    const [signup] = await mailsTo(email);
    expect(signup.subject).toBe(subjects.confirmation);
    const confirmed = await client.verifyOtp({ email, token: signup.code!, type: 'signup' });
    expect(confirmed.error).toBeNull();

    expect((await client.resetPasswordForEmail(email)).error).toBeNull();
    await waitOutMailInterval({ email }); // Auth: a second between a reset and a one-time code
    expect((await client.signInWithOtp({ email, options: { shouldCreateUser: false } })).error).toBeNull();
    expect((await client.reauthenticate()).error).toBeNull();
    expect(await subjectsTo(email)).toEqual(
      [subjects.confirmation, subjects.recovery, subjects.magicLink, subjects.reauthentication].sort(),
    );

    const invited = uniqueEmail('invited');
    const invite = await fetch(`${stack.apiUrl}/auth/v1/invite`, {
      method: 'POST',
      headers: {
        apikey: stack.serviceRoleKey,
        Authorization: `Bearer ${stack.serviceRoleKey}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ email: invited, data: { username: `inv_${Date.now().toString(36)}` } }),
    });
    expect(invite.status).toBe(200);
    const [invitation] = await mailsTo(invited);
    expect(invitation.subject).toBe(subjects.invite);
    expect((await authClient().verifyOtp({ email: invited, token: invitation.code!, type: 'invite' })).error)
      .toBeNull();
  });

  it('for an e-mail change: a code to each address, each confirming its own', async () => {
    const member = await registerAndConfirm('mover');
    const newEmail = uniqueEmail('moved');
    const change = await api('PUT', '/user', {
      token: member.session.access_token,
      json: { email: newEmail, current_password: member.password },
    });
    expect(change.status).toBe(200);
    const [toNew] = await mailsTo(newEmail);
    const [toOld] = (await mailsTo(member.email, 0)).filter((mail) => mail.subject === subjects.emailChange);
    expect([toNew.subject, toOld?.subject]).toEqual([subjects.emailChange, subjects.emailChange]);
    expect(
      (await api('POST', '/auth/confirm_email', {
        json: { email: member.email, code: toOld.code, type: 'email_change' },
      })).status,
    ).toBe(202);
    const done = await api('POST', '/auth/confirm_email', {
      json: { email: newEmail, code: toNew.code, type: 'email_change' },
    });
    expect([done.status, done.body.user?.email]).toEqual([200, newEmail]);
  });

  it("is refused to anyone but Auth: a request not signed with the hook's secret sends nothing", async () => {
    const email = uniqueEmail('forged');
    const forged = await fetch(`${stack.functionsUrl}/hooks/send_email`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,Zm9yZ2Vk',
      },
      body: JSON.stringify({
        user: { id: crypto.randomUUID(), email },
        email_data: { email_action_type: 'recovery', token: '123456' },
      }),
    });
    expect(forged.status).toBe(401);
    expect(await mailsTo(email)).toEqual([]);
  });

  it("sends a signed call's e-mails once: Auth calling again, or a replay of its request, sends nothing more", async () => {
    const account = await createAccount('replayed');
    await asRoot`delete from private.code_mails where user_id = ${account.id}`;
    const secret = process.env.SEND_EMAIL_HOOK_SECRET!.replace(/^v1,whsec_/, '');
    const payload = JSON.stringify({
      user: { id: account.id, email: account.email },
      email_data: { email_action_type: 'recovery', token: '123456' },
    });
    const id = `msg_${crypto.randomUUID()}`;
    const timestamp = new Date();
    const signature = new Webhook(secret).sign(id, timestamp, payload);
    const send = () =>
      fetch(`${stack.functionsUrl}/hooks/send_email`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: payload,
      });
    expect((await send()).status).toBe(200);
    // A minute later the account's slot is free again; the same signed call still sends nothing.
    await asRoot`delete from private.code_mails where user_id = ${account.id}`;
    const again = await send();
    expect([again.status, await again.json()]).toEqual([200, {}]);
    expect(await mailsTo(account.email)).toHaveLength(1);
  });
});
