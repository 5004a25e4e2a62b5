// Code e-mails, rendered from functions/api/templates/ and sent by SMTP (nodemailer) to SMTP_SERVER. Each
// template is an HTML file whose <title> is the subject; it may show the fields Supabase Auth's own templates
// name: {{ .Token }}, {{ .Email }}, {{ .NewEmail }}, {{ .SiteURL }}, {{ .RedirectTo }}, {{ .TokenHash }},
// {{ .ConfirmationURL }} (the link that does what the code does; empty for codes without one).
import { readFile } from 'node:fs/promises';
// @ts-types="npm:@types/nodemailer@8.0.2"
import type nodemailer from 'nodemailer';
import type { Env } from '../env.ts';

/**
 * How long the mail server may take to accept a connection and greet, for the health check and for each e-mail.
 * Short enough that the Send Email hook answers within Supabase Auth's 5 s hook timeout (after which Auth calls
 * it again) when the server hangs; long enough that a busy machine is not taken for a server that is down (at
 * 1.5 s for both, about one e-mail in two hundred failed so in the test suite on 2 shared cores).
 */
export const mailSetupMs = 3000;

/** How long the mail server may take to answer each command, once it has greeted. */
const commandMs = 3000;

export interface CodeMail {
  /** The template's name: a file of functions/api/templates/ without `.html`. */
  template: string;
  to: string;
  fields: Record<string, string>;
}

const templates = new Map<string, Promise<string>>();

/** A template, read once (a deployed function has them as static files beside its code: config.toml). */
function templateText(name: string): Promise<string> {
  const kept = templates.get(name);
  if (kept) return kept;
  const text = readFile(new URL(`../templates/${name}.html`, import.meta.url), 'utf8');
  templates.set(name, text);
  text.catch(() => templates.delete(name));
  return text;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The subject (the template's <title>) and the HTML, with the fields filled in. */
export async function renderMail(mail: CodeMail): Promise<{ subject: string; html: string }> {
  const text = await templateText(mail.template);
  const html = text.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_, field: string) => escapeHtml(mail.fields[field] ?? ''));
  const title = /<title>([^<]*)<\/title>\s*/.exec(html);
  return { subject: title?.[1].trim() ?? 'DayKeeper', html: title ? html.replace(title[0], '') : html };
}

export type SendMail = (mail: CodeMail) => Promise<void>;

/** A sender for `env`'s mail server; it throws when the server cannot be reached or refuses the e-mail. */
export function createMailer(env: Env): SendMail {
  if (!env.SMTP_SERVER) {
    return () => Promise.reject(new Error('no mail server is configured (SMTP_SERVER)'));
  }
  const server = env.SMTP_SERVER;
  const separator = server.lastIndexOf(':');
  const port = Number(server.slice(separator + 1));
  // nodemailer (some 50 ms to import) loads with the first e-mail, not with the function: a cold start, which
  // most often serves a read, does not pay for it (docs/PERFORMANCE.md, "Cold start").
  let transport: Promise<ReturnType<typeof nodemailer.createTransport>> | undefined;
  const connected = () =>
    transport ??= (import('nodemailer') as Promise<{ default: typeof nodemailer }>).then(({ default: mailer }) =>
      mailer.createTransport({
        host: server.slice(0, separator),
        port,
        secure: port === 465,
        auth: env.SMTP_USER ? { user: env.SMTP_USER, pass: env.SMTP_PASS ?? '' } : undefined,
        connectionTimeout: mailSetupMs,
        greetingTimeout: mailSetupMs,
        socketTimeout: commandMs,
      })
    );
  return async (mail) => {
    const { subject, html } = await renderMail(mail);
    await (await connected()).sendMail({ from: env.SMTP_FROM, to: mail.to, subject, html });
  };
}
