-- A follow, block, mute, close friend or report naming an account that does not exist, written without a user
-- (Studio's table editor), answers the API's 404 user_not_found rather than a foreign key's name.
create or replace function private.refuse_self_pair()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_row jsonb := to_jsonb(new);
  v_missing text;
begin
  if v_row ->> tg_argv[0] = v_row ->> tg_argv[1] then
    perform private.fail(400, tg_argv[2], tg_argv[3]);
  end if;
  if current_setting('role', true) not in ('anon', 'authenticated') then
    select c.id into v_missing
    from unnest(array[v_row ->> tg_argv[0], v_row ->> tg_argv[1]]) c(id)
    where c.id is not null and not exists (select 1 from public.profiles p where p.id = c.id::uuid)
    limit 1;
    if v_missing is not null then
      perform private.fail(404, 'user_not_found', format('No account has the id %s (deleted, or never made)', v_missing));
    end if;
  end if;
  return new;
end;
$$;
revoke execute on function private.refuse_self_pair() from public;
comment on function private.refuse_self_pair() is
  'Trigger: refuses a row that relates an account to itself, or (written without a user) to an account that does not exist (arguments: the two columns, the code, the message).';
