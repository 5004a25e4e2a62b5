// docs/SUPABASE-JS.md, "Signing up and signing in", run as written against the test stack (only its URLs, the
// anon key, a fresh e-mail and username are put in): the Mailpit reader takes the code of the e-mail to exactly
// its address though Mailpit's search finds a newer one to a longer address first; sign-up, verifyOtp with the
// e-mailed code and sign-in by e-mail do what the comments say, and supabase-js cannot sign in by username.
import { describe, expect, it } from 'vitest';
import { uniqueUsername } from '../helpers/accounts.ts';
import { blockAfter, runModule } from '../helpers/doc-blocks.ts';
import { anonSdk } from '../helpers/sdk.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

const doc = 'docs/SUPABASE-JS.md';
const reader = () =>
  blockAfter(doc, '<!-- supabase-js Mailpit code: test/sdk/sign-up-docs.test.ts runs this block -->')
    .replace("'http://127.0.0.1:54324'", JSON.stringify(stack.mailpitUrl));
const signUp = () =>
  blockAfter(doc, '<!-- supabase-js sign-up: test/sdk/sign-up-docs.test.ts runs this block after the one above -->');

/** An e-mail to `to` through Mailpit's own send API, as Auth's would arrive. */
async function mail(to: string, text: string): Promise<void> {
  const response = await fetch(`${stack.mailpitUrl}/api/v1/send`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      From: { Email: 'no-reply@daykeeper.local' },
      To: [{ Email: to }],
      Subject: 'Your code',
      Text: text,
    }),
  });
  expect(response.status).toBe(200);
}

describe('docs/SUPABASE-JS.md: reading a code from Mailpit', () => {
  it('takes the e-mail to exactly the address, not a newer one to an address that contains it', async () => {
    const email = uniqueEmail('ann');
    const longer = `jo${email}`;
    await mail(email, 'Your code is 111111');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await mail(longer, 'Your code is 222222');
    // The pitfall the docs name: the search for this address answers the longer one's e-mail first.
    const search = await (await fetch(`${stack.mailpitUrl}/api/v1/search?query=${encodeURIComponent(`to:"${email}"`)}`))
      .json() as {
        messages: { To: { Address: string }[] }[];
      };
    expect(search.messages.map((m) => m.To[0].Address)).toEqual([longer, email]);

    const lines = await runModule(
      'docs-mailpit-code',
      `${reader()}\nconsole.log(await latestCode(${JSON.stringify(email)}));\n`,
    );
    expect(lines.at(-1)).toBe('111111');
  });
});

describe.skipIf(!authIsRunning)('docs/SUPABASE-JS.md: sign-up with the e-mailed code, sign-in by e-mail', () => {
  it('runs as written: signUp, verifyOtp with the code from Mailpit, signInWithPassword by e-mail, rpc(me)', async () => {
    const email = uniqueEmail('ann');
    const username = uniqueUsername('ann');
    const code = `${reader()}\n${signUp()}`
      .replace("'http://127.0.0.1:54321'", JSON.stringify(stack.apiUrl))
      .replace("'ANON_KEY'", JSON.stringify(stack.anonKey))
      .replace("'ann@example.com'", JSON.stringify(email))
      .replace("username: 'ann'", `username: ${JSON.stringify(username)}`);
    const lines = await runModule('docs-sign-up', code);
    expect(lines.slice(-2)).toEqual(['true', `${email} ${username}`]);

    // What supabase-js cannot do: sign in with the username in place of the e-mail.
    const { data, error } = await anonSdk().auth.signInWithPassword({ email: username, password: 'a long passphrase' });
    expect(error).not.toBeNull();
    expect(data.session).toBeNull();
  });
});
