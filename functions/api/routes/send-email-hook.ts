// POST /hooks/send_email: Supabase Auth's Send Email hook. Auth sends no e-mail itself: for every code e-mail,
// whatever door asked (its /signup, /recover, /otp, /resend, /user, /reauthenticate, /invite, or the facade),
// it asks here. The database gives a slot or says why not (private.take_mail_slot: once a minute per account
// and kind, a budget per client address and for the project); then the project's template goes out by SMTP.
// Not in the OpenAPI document: only Auth calls it, signed with the hook's secret (Standard Webhooks).
// See docs/ACCOUNTS-SECURITY.md, "Code e-mails".
import { z } from 'zod';
import type { Context } from 'hono';
import type { AppEnv, Deps } from '../lib/context.ts';
import type { CodeMail } from '../lib/mail.ts';
import { queryAs } from '../lib/query.ts';
import { createRouter } from '../lib/router.ts';
import { sql } from '../lib/sql-text.ts';
import { server } from '../lib/tokens.ts';

/** Auth's e-mail action types, each with its template (functions/api/templates/<name>.html). */
const templates: Record<string, string> = {
  signup: 'confirmation',
  invite: 'invite',
  magiclink: 'magic_link',
  recovery: 'recovery',
  email_change: 'email_change',
  reauthentication: 'reauthentication',
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
  }),
});
type HookInput = z.infer<typeof HookInput>;

/**
 * The e-mails one hook call asks for. An e-mail change with secure_email_change (double_confirm_changes) sends a
 * code to each address: `token` to the current one, `token_new` to the new one (whose hashes Auth swaps).
 */
function mailsOf({ user, email_data: data }: HookInput): CodeMail[] {
  const template = templates[data.email_action_type];
  const fields = { Email: user.email, NewEmail: user.new_email, SiteURL: data.site_url, RedirectTo: data.redirect_to };
  if (data.email_action_type !== 'email_change') {
    return [{ template, to: user.email, fields: { ...fields, Token: data.token, TokenHash: data.token_hash } }];
  }
  if (data.token_new && user.email) {
    return [
      { template, to: user.email, fields: { ...fields, Token: data.token, TokenHash: data.token_hash_new } },
      { template, to: user.new_email, fields: { ...fields, Token: data.token_new, TokenHash: data.token_hash } },
    ];
  }
  return [{ template, to: user.new_email, fields: { ...fields, Token: data.token || data.token_new, TokenHash: data.token_hash } }];
}

/** How the hook answers Auth: a refusal is a 200 whose `error` Auth passes on to its client with `http_code`. */
function refuse(c: Context<AppEnv>, httpCode: number, message: string) {
  return c.json({ error: { http_code: httpCode, message } }, 200);
}

/** The payload, when Auth signed it with the hook's secret within the last five minutes (else undefined). */
async function verified(c: Context<AppEnv>, secret: string | undefined): Promise<unknown> {
  if (!secret) return undefined;
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

export const sendEmailHook = createRouter().post('/hooks/send_email', async (c) => {
  const payload = await verified(c, c.var.deps.env.SEND_EMAIL_HOOK_SECRET);
  if (payload === undefined) return c.json({ error: { http_code: 401, message: 'Not signed with the hook secret' } }, 401);
  const parsed = HookInput.safeParse(payload);
  if (!parsed.success || !templates[parsed.data.email_data.email_action_type]) {
    return refuse(c, 500, 'Error sending e-mail: the Send Email hook has no template for this e-mail');
  }
  const input = parsed.data;
  const mails = mailsOf(input);
  // Not the request limits of the address Auth calls from: the slot counts the client Auth names.
  const deps: Deps = { ...c.var.deps, requestQuota: undefined, readOnly: false };
  const slot = [input.user.id, input.email_data.email_action_type, input.metadata.ip_address, mails.length] as const;
  const [{ refusal }] = await queryAs(deps, server, sql`select private.take_mail_slot(${slot[0]}, ${slot[1]}, ${slot[2]}, ${slot[3]}) as refusal`);
  if (refusal) return refuse(c, 429, refusal);
  try {
    for (const mail of mails) await deps.sendMail(mail);
  } catch (error) {
    console.error('send_email hook: the mail server failed:', error instanceof Error ? error.message : error);
    await queryAs(deps, server, sql`select private.give_back_mail_slot(${slot[0]}, ${slot[1]}, ${slot[2]}, ${slot[3]})`);
    // Auth answers its client as it does when its own mail server fails ("Error sending … email", 500).
    return refuse(c, 500, 'Error sending e-mail: the mail server is unavailable');
  }
  return c.json({}, 200);
});
