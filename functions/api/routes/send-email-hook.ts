// POST /hooks/send_email: Supabase Auth's Send Email hook. Auth sends no e-mail itself: for every code e-mail,
// whatever door asked (its /signup, /recover, /otp, /magiclink, /resend, /user, /reauthenticate, /invite: the
// facade, supabase-js, or Studio's Authentication page), it asks here. The database gives a slot or says why not
// (private.take_mail_slot: once a minute per account and kind, a budget per client address and for the project);
// then the project's template for that kind goes out by SMTP, with its code and the link that does the same.
// Not in the OpenAPI document: only Auth calls it, signed with the hook's secret (Standard Webhooks).
// See docs/ACCOUNTS-SECURITY.md, "Code e-mails".
import { z } from 'zod';
import type { Context } from 'hono';
import { mailAccountNotice } from '../lib/account-notices.ts';
import type { AppEnv, RequestDeps } from '../lib/context.ts';
import type { CodeMail } from '../lib/mail.ts';
import {
  accountMailFacts,
  giveBackHookDelivery,
  giveBackMailSlot,
  type MailFacts,
  type MailSlot,
  takeHookDelivery,
  takeMailSlot,
} from '../lib/mail-slots.ts';
import { createRouter } from '../lib/router.ts';

/** Auth's e-mail action types, each with its template (functions/api/templates/<name>.html). */
const templates: Record<string, string> = {
  signup: 'confirmation',
  invite: 'invite',
  magiclink: 'magic_link',
  recovery: 'recovery',
  email_change: 'email_change',
  reauthentication: 'reauthentication',
};

/**
 * The kinds whose text depends on the account they go to (private.account_mail_facts): its template when its owner
 * knows a password or not, and when it has a verified second factor or not. An account Auth has not committed yet
 * (a sign-up, or an invitation to a new address, whose hook call comes before) gets the kind's own template.
 * Studio's "Send confirmation" is Auth's invitation again, to an account that may have chosen a password at sign-up;
 * its "Send magic link" to an unconfirmed account is the sign-up's confirmation, which an invitee gets without a
 * password; a sign-in link or a reset code to an account with a factor leads to a session that must step up first.
 */
const accountTemplates: Record<string, (facts: MailFacts) => string> = {
  signup: (facts) => facts.has_password ? 'confirmation' : 'confirmation_no_password',
  invite: (facts) => facts.has_password ? 'invite_with_password' : 'invite',
  magiclink: (facts) => facts.has_factor ? 'magic_link_second_factor' : 'magic_link',
  recovery: (facts) => facts.has_factor ? 'recovery_second_factor' : 'recovery',
};

/** The template for this call: the kind's own, or the one its account's facts pick. */
async function templateOf(deps: RequestDeps, { user, email_data: data }: HookInput): Promise<string> {
  const pick = accountTemplates[data.email_action_type];
  if (!pick) return templates[data.email_action_type];
  const facts = await accountMailFacts(deps, user.id);
  return facts ? pick(facts) : templates[data.email_action_type];
}

/**
 * Auth's notices of a change of who controls the account (config.toml `[auth.email.notification.*]`): each goes to
 * the address the account had before, with a one-use undo code the database records (34_account_changes.sql).
 */
const notices: Record<string, { kind: string; what: string; detail: (data: HookInput['email_data']) => string }> = {
  password_changed_notification: {
    kind: 'password_changed',
    what: 'Your password was changed',
    detail: () => 'The password was changed',
  },
  email_changed_notification: {
    kind: 'email_changed',
    what: 'Your e-mail address was changed',
    detail: () => 'The e-mail address was changed to another one',
  },
  mfa_factor_enrolled_notification: {
    kind: 'mfa_factor_enrolled',
    what: 'An authenticator was added',
    detail: (data) => `A second factor (${data.factor_type || 'totp'}) was added`,
  },
  mfa_factor_unenrolled_notification: {
    kind: 'mfa_factor_unenrolled',
    what: 'An authenticator was removed',
    detail: (data) => `A second factor (${data.factor_type || 'totp'}) was removed`,
  },
};

const HookInput = z.object({
  metadata: z.object({ ip_address: z.string().default('') }).default({ ip_address: '' }),
  user: z.object({ id: z.string().min(1), email: z.string().default(''), new_email: z.string().default('') }),
  email_data: z.object({
    email_action_type: z.string(),
    token: z.string().default(''),
    token_hash: z.string().default(''),
    token_new: z.string().default(''),
    token_hash_new: z.string().default(''),
    redirect_to: z.string().default(''),
    site_url: z.string().default(''),
    old_email: z.string().default(''),
    factor_type: z.string().default(''),
  }),
});
type HookInput = z.infer<typeof HookInput>;

/**
 * The link that does what the code does: Auth's GET /verify, which verifies the token hash and redirects to
 * redirect_to (else the site URL) with a session, as Auth's own {{ .ConfirmationURL }}. The hook's `site_url` is
 * Auth's external URL (API_EXTERNAL_URL: the gateway's /auth/v1), so the link works wherever Auth is reached.
 */
function confirmationUrl(data: HookInput['email_data'], tokenHash: string): string {
  if (!tokenHash || !data.site_url) return '';
  const query = new URLSearchParams({ token: tokenHash, type: data.email_action_type });
  if (data.redirect_to) query.set('redirect_to', data.redirect_to);
  return `${data.site_url.replace(/\/$/, '')}/verify?${query}`;
}

/**
 * The e-mails one hook call asks for. An e-mail change with secure_email_change (double_confirm_changes) sends a
 * code to each address: `token` to the current one, `token_new` to the new one (whose hashes Auth swaps).
 */
function mailsOf({ user, email_data: data }: HookInput, template: string): CodeMail[] {
  const fields = { Email: user.email, NewEmail: user.new_email, SiteURL: data.site_url, RedirectTo: data.redirect_to };
  const mail = (to: string, token: string, tokenHash: string): CodeMail => ({
    template,
    to,
    fields: { ...fields, Token: token, TokenHash: tokenHash, ConfirmationURL: confirmationUrl(data, tokenHash) },
  });
  if (data.email_action_type !== 'email_change') return [mail(user.email, data.token, data.token_hash)];
  if (data.token_new && user.email) {
    return [mail(user.email, data.token, data.token_hash_new), mail(user.new_email, data.token_new, data.token_hash)];
  }
  return [mail(user.new_email, data.token || data.token_new, data.token_hash)];
}

/**
 * The hook's database access: not the request limits of the address Auth calls from (the slot counts the client
 * Auth names).
 */
function hookDeps(c: Context<AppEnv>): RequestDeps {
  return { ...c.var.deps, request: { ...c.var.deps.request, quota: undefined, readOnly: false } };
}

/** How the hook answers Auth: a refusal is a 200 whose `error` Auth passes on to its client with `http_code`. */
function refuse(c: Context<AppEnv>, httpCode: number, message: string) {
  return c.json({ error: { http_code: httpCode, message } }, 200);
}

/**
 * The hook secret of the repository's .env.development, there only so that the Supabase CLI parses config.toml in a
 * fresh clone: public, so it is never taken as this function's secret (a copy of it signs nothing).
 */
export const placeholderHookSecret = 'v1,whsec_cGxhY2Vob2xkZXIgb2YgLmVudi5kZXZlbG9wbWVudDogbm90IGEgc2VjcmV0';

/** The payload, when Auth signed it with the hook's secret within the last five minutes (else undefined). */
async function verified(c: Context<AppEnv>, secret: string | undefined): Promise<unknown> {
  if (!secret || secret === placeholderHookSecret) return undefined;
  const payload = await c.req.text();
  // Loaded with the hook's first call, not with the function (some 30 ms a cold start need not pay).
  const { Webhook } = await import('standardwebhooks');
  try {
    return new Webhook(secret.replace(/^v1,whsec_/, '')).verify(payload, {
      'webhook-id': c.req.header('webhook-id') ?? '',
      'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
      'webhook-signature': c.req.header('webhook-signature') ?? '',
    });
  } catch {
    return undefined;
  }
}

export const sendEmailHook = createRouter().post('/hooks/send_email', async function sendEmail(c) {
  const payload = await verified(c, c.var.deps.env.SEND_EMAIL_HOOK_SECRET);
  if (payload === undefined) {
    return c.json({ error: { http_code: 401, message: 'Not signed with the hook secret' } }, 401);
  }
  const parsed = HookInput.safeParse(payload);
  const notice = parsed.success ? notices[parsed.data.email_data.email_action_type] : undefined;
  if (!parsed.success || (!notice && !templates[parsed.data.email_data.email_action_type])) {
    return refuse(c, 500, 'Error sending e-mail: the Send Email hook has no template for this e-mail');
  }
  const deps = hookDeps(c);
  // Asked before the call is taken: a database that fails here leaves Auth's next try its e-mail.
  const template = notice ? '' : await templateOf(deps, parsed.data);
  // A call already taken (Auth calling again, or a replay of its signed request) is answered as sent.
  const webhookId = c.req.header('webhook-id') ?? '';
  if (!(await takeHookDelivery(deps, webhookId))) return c.json({}, 200);
  if (notice) return await sendNotice(c, parsed.data, notice, webhookId);
  const input = parsed.data;
  const mails = mailsOf(input, template);
  const slot: MailSlot = {
    userId: input.user.id,
    kind: input.email_data.email_action_type,
    address: input.metadata.ip_address,
    mails: mails.length,
    newEmail: input.user.new_email,
  };
  const refusal = await takeMailSlot(deps, slot);
  if (refusal) return refuse(c, 429, refusal);
  try {
    for (const mail of mails) await deps.sendMail(mail);
  } catch (error) {
    console.error('send_email hook: the mail server failed:', error instanceof Error ? error.message : error);
    await giveBackMailSlot(deps, slot);
    await giveBackHookDelivery(deps, webhookId);
    // Auth answers its client as it does when its own mail server fails ("Error sending … email", 500).
    return refuse(c, 500, 'Error sending e-mail: the mail server is unavailable');
  }
  return c.json({}, 200);
});

/**
 * A notice of a change, to the address the account had before it (for an e-mail change, Auth's `old_email`). It
 * takes no mail slot: it follows a change the account made, not a request anyone may send, and must not be lost
 * to a budget a flood spent. The mail server failing loses it (Auth only logs the hook's error), as Auth would.
 */
async function sendNotice(c: Context<AppEnv>, input: HookInput, notice: (typeof notices)[string], webhookId: string) {
  const deps = hookDeps(c);
  try {
    await mailAccountNotice(deps, {
      userId: input.user.id,
      kind: notice.kind,
      to: input.email_data.old_email || input.user.email,
      what: notice.what,
      detail: notice.detail(input.email_data),
      address: input.metadata.ip_address,
      device: '',
    });
  } catch (error) {
    console.error('send_email hook: the notice was not sent:', error instanceof Error ? error.message : error);
    await giveBackHookDelivery(deps, webhookId);
    return refuse(c, 500, 'Error sending e-mail: the mail server is unavailable');
  }
  return c.json({}, 200);
}
