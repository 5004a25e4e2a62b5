// Accounts made through the facade's own paths, as a client would: register, read the code, confirm.
import { api, type ApiResponse } from './http.ts';
import { latestCode } from './mailpit.ts';
import { defaultPassword, uniqueEmail } from './users.ts';
import { uniqueUsername } from './accounts.ts';

export interface Registered {
  username: string;
  email: string;
  password: string;
  session: { access_token: string; refresh_token: string };
  userId: string;
}

export async function registerAndConfirm(label = 'member', extra: Record<string, unknown> = {}): Promise<Registered> {
  const username = uniqueUsername(label);
  const email = uniqueEmail(label);
  const registered = await api('POST', '/auth/register', {
    json: { username, email, password: defaultPassword, ...extra },
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const confirmed = await api('POST', '/auth/confirm_email', { json: { email, code: await latestCode(email) } });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return {
    username,
    email,
    password: defaultPassword,
    session: confirmed.body.session,
    userId: confirmed.body.user.id,
  };
}

/** The body without the request id, to compare two answers that must be identical. */
export function withoutRequestId(response: ApiResponse) {
  const { request_id: _id, ...error } = response.body?.error ?? {};
  return { status: response.status, body: response.body?.error ? { error } : response.body };
}
