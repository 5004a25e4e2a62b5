// Reads the codes Supabase Auth e-mails, through Mailpit's REST API.
import { stack } from './stack.ts';

interface MessageSummary {
  ID: string;
  Created: string;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(`${stack.mailpitUrl}${path}`);
  if (!response.ok) throw new Error(`Mailpit ${path}: ${response.status}`);
  return response.json() as Promise<T>;
}

/** The newest 6-digit code sent to `email` after `since`, waiting up to `timeoutMs` for it to arrive. */
export async function latestCode(email: string, since = new Date(0), timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const query = encodeURIComponent(`to:"${email}"`);
  while (Date.now() < deadline) {
    const { messages } = await getJson<{ messages: MessageSummary[] }>(`/api/v1/search?query=${query}&limit=1`);
    const newest = messages[0];
    if (newest && new Date(newest.Created) >= since) {
      const message = await getJson<{ Text: string }>(`/api/v1/message/${newest.ID}`);
      const code = /\b(\d{6})\b/.exec(message.Text)?.[1];
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no code e-mailed to ${email} within ${timeoutMs} ms`);
}

/** The undo code of the newest notice of an account change (private.record_account_change) sent to `email` after `since`. */
export async function latestUndoCode(email: string, since: Date, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const query = encodeURIComponent(`to:"${email}" subject:"DayKeeper:"`);
  while (Date.now() < deadline) {
    const { messages } = await getJson<{ messages: MessageSummary[] }>(`/api/v1/search?query=${query}&limit=1`);
    const newest = messages[0];
    if (newest && new Date(newest.Created) >= since) {
      const message = await getJson<{ Text: string }>(`/api/v1/message/${newest.ID}`);
      const code = /\b([0-9a-f]{32})\b/.exec(message.Text)?.[1];
      if (code) return code;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no notice of an account change e-mailed to ${email} within ${timeoutMs} ms`);
}

/** How many e-mails `email` has received (after waiting `settleMs` for any still on their way). */
export async function mailCount(email: string, settleMs = 1_000): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const query = encodeURIComponent(`to:"${email}"`);
  const { messages_count: count } = await getJson<{ messages_count: number }>(`/api/v1/search?query=${query}&limit=1`);
  return count;
}

export interface Mail {
  subject: string;
  /** The first 6-digit code of its text. */
  code: string | undefined;
  /** Its text, as a mail reader without HTML shows it. */
  text: string;
  /** The first link of its HTML. */
  link: string | undefined;
}

/** Every e-mail `email` has received, newest first (after waiting `settleMs` for any still on their way). */
export async function mailsTo(email: string, settleMs = 1_000): Promise<Mail[]> {
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const query = encodeURIComponent(`to:"${email}"`);
  const { messages } = await getJson<{ messages: (MessageSummary & { Subject: string })[] }>(
    `/api/v1/search?query=${query}&limit=50`,
  );
  return Promise.all(messages.map(async (summary) => {
    const message = await getJson<{ Text: string; HTML: string }>(`/api/v1/message/${summary.ID}`);
    const link = /href="([^"]+)"/.exec(message.HTML)?.[1]
      ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replaceAll('&amp;', '&');
    return { subject: summary.Subject, code: /\b(\d{6})\b/.exec(message.Text)?.[1], text: message.Text, link };
  }));
}
