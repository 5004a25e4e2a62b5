// The OpenAPI document's overview (info.description): what a client needs before its first request.
export const apiOverview = `
The REST API of DayKeeper, a social network of daily posts. Every rule (who may see what, who may do what)
is enforced by the database, so this API, supabase-js clients and admins in Studio meet the same rules.

**Authentication.** Register (\`POST /auth/register\`), confirm the e-mailed 6-digit code
(\`POST /auth/confirm_email\`), then \`POST /auth/login\` with a username or e-mail and the password. Send the
access token as \`Authorization: Bearer <access token>\`. It expires (\`expires_in\` seconds); trade the refresh
token for a new pair with \`POST /auth/refresh\` (it rotates: keep the new one). A signed-out, banned or
deleted account's token is refused at once with 401 and \`WWW-Authenticate\`. Without the password, an e-mailed
code signs in too: \`POST /auth/login_code\`, then \`POST /auth/login_with_code\`. Routes marked with no security
also answer anonymous callers, who see only what is public.

**Lists** are pages, newest (or best) first: \`?limit=\` 1 to 100 (20 by default); a page is
\`{ "items": [...], "next_cursor": "…" | null, "newer_cursor": "…" | null }\`; ask for the next one with
\`?cursor=<next_cursor>\`. Cursors are opaque and stay valid while items are added. To refresh what it shows, a
client sends the \`newer_cursor\` of its first page back as \`?newer_than=\` (the feed, a user's posts, a post's
comments, the notifications): it gets only what came since, newest first, and pages down with \`?cursor=\` as
usual until \`next_cursor\` is null.

**Errors** all have one shape: \`{ "error": { "code", "message", "details"?, "request_id" } }\`. \`code\` is
stable, and each error answer below lists the codes that operation can answer with that status (the full table:
supabase/ERRORS.md in the repository); \`message\` is for people. Something you may not
see answers 404, exactly as something that does not exist. 429 and 503 carry \`Retry-After\`.

**Limits.** Each account may write only so much per window of time (posts, comments, likes, follows,
blocks, close-friend changes, reports, mentions; tighter for accounts younger than a day), and every request
that reaches the database, reads included, counts against the request limits of its account and its address.
An answer that counted carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds until
the window ends) of the limit nearest its end, so a client can slow down before a 429; one past a limit is a 429
(\`too_many_<family>\`, \`too_many_requests\`) with \`Retry-After\`.

**Retries.** The operations that create (posts, comments, replies, reports) take an \`Idempotency-Key\` header:
sent again with the same key within a day, a request answers the first answer and creates nothing.

**Caching.** Every answer says in \`Cache-Control\` what may be kept: a read is \`public, no-cache\` without a token
and \`private, no-cache\` with one, and carries an \`ETag\`: sent back in \`If-None-Match\`, an unchanged answer is a
304 without a body. The account's e-mail, sessions, second factors and export, every write and every refusal are
\`no-store\`.

**Reads and writes.** A write acknowledged to you is in every read you make next; others see it once the
read replica has replayed it (normally within milliseconds, at most 2 s).

**Days.** A post belongs to the day it was written on in its author's time zone, and stays there.
`.trim();
