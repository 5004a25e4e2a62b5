// How `npm run error-codes` reads the SQL (supabase/tools/operation-codes.ts): a function raises what it calls
// and what the tables it writes fire, and a function or table only named in a comment or a message is not called.
import { describe, expect, it } from 'vitest';
import { sqlCodes, sqlGraph } from '../../supabase/tools/operation-codes.ts';

const fn = (name: string, body: string) =>
  `create function ${name}() returns void language plpgsql as $$\nbegin\n${body}\nend;\n$$;\n`;

const schema = [
  fn(
    'public.write',
    [
      "  perform private.fail(400, 'bad_input', 'Call private.named_only() to repair it; it''s fine');",
      '  -- private.in_comment() is not called here, nor is public.t written: update public.t set x = 1;',
      '  perform private.called();',
      '  insert into public.logged (x) values (1);',
    ].join('\n'),
  ),
  fn('private.named_only', "  perform private.fail(403, 'named_code', 'x');"),
  fn('private.in_comment', "  perform private.fail(403, 'comment_code', 'x');"),
  fn('private.called', "  perform private.fail(409, 'called_code', 'x');"),
  fn('private.on_log', "  perform private.fail(409, 'trigger_code', 'x');"),
  fn('private.on_t', "  perform private.fail(409, 'update_code', 'x');"),
  'create trigger on_log before insert on public.logged for each row execute function private.on_log();',
  'create trigger on_t before update on public.t for each row execute function private.on_t();',
].join('\n');

const documented = new Set(['bad_input', 'named_code', 'comment_code', 'called_code', 'trigger_code', 'update_code']);

describe('the error codes an SQL function may raise', () => {
  it("are its own, its callees' and its written tables' triggers', not those of what a message or comment names", () => {
    const graph = sqlGraph([{ path: 'schema.sql', text: schema }]);
    expect([...sqlCodes(graph, ['public.write'], documented)].sort()).toEqual([
      'bad_input',
      'called_code',
      'trigger_code',
    ]);
    // Each named function still raises its own when called.
    expect([...sqlCodes(graph, ['private.named_only', 'private.in_comment'], documented)].sort()).toEqual([
      'comment_code',
      'named_code',
    ]);
  });
});
