// /auth/undo: the owner undoes a change of who controls the account with the code its notice e-mailed to the
// address the account had before (private.undo_account_change; docs/ACCOUNTS-SECURITY.md, "Undoing a change").
// GET shows a page with a button, so that a mail scanner opening the link undoes nothing; POST does it.
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse } from '../lib/openapi-errors.ts';
import { queryAs } from '../lib/query.ts';
import { createRouter } from '../lib/router.ts';
import { sql } from '../lib/sql-text.ts';
import { server } from '../lib/tokens.ts';
import { body, json } from './schemas.ts';

const UndoCode = z.string().regex(/^[0-9a-f]{32}$/, 'the 32-character code from the e-mail').openapi({
  example: '5f0c6a5e6f1e4d8e9a432b7f1f0e9b1c',
});

const UndoneSchema = z.object({
  undone: z.enum(['password_changed', 'email_changed', 'mfa_factor_enrolled', 'mfa_factor_unenrolled']),
  email: z.string().openapi({ example: 'ana@example.com' }),
  email_restored: z.boolean().openapi({ example: true }),
  message: z.string().openapi({
    example: 'Undone. Every device is signed out; choose a new password with a reset code sent to ana@example.com.',
  }),
}).openapi('AccountChangeUndone');

/** The page the e-mail links to: one button, which posts the code to this same path. */
function undoPage(code: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Undo a change to your DayKeeper account</title></head>
<body>
<h1>Undo a change to your DayKeeper account</h1>
<p>This signs every device out, gives the account back the address this e-mail came to, removes an authenticator
added to an account that had none, and asks you to choose a new password with a reset code.</p>
<button id="undo">Undo the change</button>
<p id="result" role="status"></p>
<script>
document.getElementById('undo').onclick = async () => {
  const response = await fetch(location.pathname, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: ${
    JSON.stringify(code)
  } }),
  });
  const answer = await response.json();
  document.getElementById('result').textContent = response.ok ? answer.message : answer.error.message;
};
</script>
</body></html>`;
}

export const accountUndo = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/undo',
      operationId: 'undoAccountChange',
      description:
        'Undoes a change of who controls the account (password, e-mail, authenticator) with the code its notice ' +
        'e-mailed to the address the account had before, once and within 7 days: every session ends, that address ' +
        'comes back, the authenticators of an account that had none go, a factor removal asked for since is ' +
        'cancelled, and the password becomes unknowable: choose a new one with POST /auth/forget_password.',
      security: [],
      tags: ['auth'],
      summary: 'Undo a change of who controls the account, with the code e-mailed to the previous address',
      request: body(z.object({ code: UndoCode })),
      responses: {
        200: json(UndoneSchema, 'Undone'),
        400: errorResponse('Invalid code'),
        404: errorResponse('No change to undo with this code (wrong, used, or older than 7 days)'),
      },
    }),
    async function undoAccountChange(c) {
      const { code } = c.req.valid('json');
      const [{ result }] = await queryAs(
        c.var.deps,
        server,
        sql`select private.undo_account_change(${code}) as result`,
      );
      return c.json({
        ...result,
        message: `Undone. Every device is signed out; choose a new password with a reset code sent to ${result.email}.`,
      }, 200);
    },
  );

// Outside the OpenAPI document: a page for a browser, not an operation.
accountUndo.get('/auth/undo', function undoAccountChangePage(c) {
  const code = UndoCode.safeParse(c.req.query('code'));
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(undoPage(code.success ? code.data : ''), 200);
});
