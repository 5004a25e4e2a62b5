// Whether the mail server code e-mails go out through (SMTP_SERVER; the Send Email hook sends them) answers: a
// TCP connection and its 220 greeting. The answer to a request for a code e-mail depends on it, not on the
// account, so a server that is down is told (503 mail_unavailable) without telling which accounts exist.
import { connect } from 'node:net';
import type { Env } from '../env.ts';
import { ApiError } from './errors.ts';
import { mailSetupMs } from './mail.ts';

/** `server` is host:port. */
export function smtpIsUp(server: string): Promise<boolean> {
  const separator = server.lastIndexOf(':');
  const host = server.slice(0, separator);
  const port = Number(server.slice(separator + 1));
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (up: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(up);
    };
    const timer = setTimeout(() => done(false), mailSetupMs);
    socket.once('data', (data: Uint8Array) => {
      done(new TextDecoder().decode(data).startsWith('220'));
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** Throws 503 mail_unavailable when the configured mail server does not answer (nothing to check without one). */
export async function assertMailUp(env: Env): Promise<void> {
  if (env.SMTP_SERVER && !(await smtpIsUp(env.SMTP_SERVER))) throw mailUnavailable();
}

export function mailUnavailable(): ApiError {
  return new ApiError(
    503,
    'mail_unavailable',
    'E-mail cannot be sent right now; nothing was sent, try again later',
    undefined,
    30,
  );
}
