-- Mentions: `@username` in a post or a comment names an account. Resolved when the text is written (and a
-- post's text edited) into public.post_mentions / public.comment_mentions, returned with the text as cards,
-- and notified to each newly mentioned account (21_notifications.sql).

-- The usernames a text mentions, in order of first appearance: `@` then 3 to 30 of a-z 0-9 . _, any case,
-- not inside a word or an e-mail address. A dot ending a sentence ("see @ann.") may end the name or not:
-- both readings are candidates.
create function private.mention_names(p_text text)
returns text[]
language sql
immutable
set search_path = ''
as $$
  select coalesce(array_agg(c.name order by c.first), '{}')
  from (
    select n.name, min(m.ord) as first
    from regexp_matches(coalesce(p_text, ''), '(?:^|[^A-Za-z0-9._@])@([A-Za-z0-9._]{3,30})', 'g') with ordinality m(groups, ord)
    cross join lateral unnest(array[lower(m.groups[1]), rtrim(lower(m.groups[1]), '.')]) n(name)
    where n.name ~ '^[a-z0-9._]{3,30}$'
    group by n.name
  ) c
$$;
revoke execute on function private.mention_names(text) from public;
grant execute on function private.mention_names(text) to anon, authenticated, service_role;
comment on function private.mention_names(text) is 'The usernames a text mentions (@username), lowercased, in order of first appearance.';

-- The accounts a text mentions that the writer may see (the profiles policy decides), at most 20.
create function private.mentioned_accounts(p_text text)
returns uuid[]
language plpgsql
stable
set search_path = ''
as $$
begin
  return array(
    select p.id
    from unnest(private.mention_names(p_text)) with ordinality n(name, ord)
    join public.profiles p on p.username = n.name
    order by n.ord
    limit 20
  );
end;
$$;
revoke execute on function private.mentioned_accounts(text) from public;
grant execute on function private.mentioned_accounts(text) to authenticated, service_role;
comment on function private.mentioned_accounts(text) is 'The accounts (at most 20) a text mentions that the caller may see.';

-- The store helpers below are security definer and callable by clients (the writer's trigger calls them as
-- the writer), so they refuse a client other than the text's author: nobody sets or clears the mentions of
-- someone else's text. Roles that bypass RLS (service_role, Studio's) edit any text and pass.
create function private.require_text_writer(p_author uuid)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if current_setting('role') in ('anon', 'authenticated') and p_author is distinct from private.uid() then
    raise exception using errcode = '42501', message = 'Only the author of a text sets its mentions';
  end if;
end;
$$;
revoke execute on function private.require_text_writer(uuid) from public;
grant execute on function private.require_text_writer(uuid) to authenticated, service_role;
comment on function private.require_text_writer(uuid) is
  'Raises 42501 when a client (anon, authenticated) is not the given author.';

-- Writes what the writer's triggers resolved: clients have no write privilege on the mention tables. Only
-- accounts the stored text does mention and its author may see are kept, whoever calls.
create function private.store_post_mentions(p_post_id uuid, p_accounts uuid[])
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_names text[] := private.mention_names((select p.body from public.posts p where p.id = p_post_id));
  v_author uuid := (select p.author_id from public.posts p where p.id = p_post_id);
begin
  perform private.require_text_writer(v_author);
  delete from public.post_mentions m where m.post_id = p_post_id and m.user_id <> all (p_accounts);
  perform set_config('private.storing_mentions', 'on', true);
  insert into public.post_mentions (post_id, user_id)
  select p_post_id, u.id from public.profiles u where u.id = any (p_accounts) and u.username = any (v_names)
    and private.may_see_profile(u, v_author)
  on conflict do nothing;
  perform set_config('private.storing_mentions', 'off', true);
end;
$$;
revoke execute on function private.store_post_mentions(uuid, uuid[]) from public;
grant execute on function private.store_post_mentions(uuid, uuid[]) to authenticated, service_role;
comment on function private.store_post_mentions(uuid, uuid[]) is
  'Sets the accounts a post mentions to those given that its text names (trigger helper).';

create function private.store_comment_mentions(p_comment_id uuid, p_accounts uuid[])
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_names text[] := private.mention_names((select c.body from public.comments c where c.id = p_comment_id));
  v_author uuid := (select c.author_id from public.comments c where c.id = p_comment_id);
begin
  perform private.require_text_writer(v_author);
  perform set_config('private.storing_mentions', 'on', true);
  insert into public.comment_mentions (comment_id, user_id)
  select p_comment_id, u.id from public.profiles u where u.id = any (p_accounts) and u.username = any (v_names)
    and private.may_see_profile(u, v_author)
  on conflict do nothing;
  perform set_config('private.storing_mentions', 'off', true);
end;
$$;
revoke execute on function private.store_comment_mentions(uuid, uuid[]) from public;
grant execute on function private.store_comment_mentions(uuid, uuid[]) to authenticated, service_role;
comment on function private.store_comment_mentions(uuid, uuid[]) is
  'Records the accounts given that a comment''s text names (trigger helper).';

-- Security invoker: the writer resolves the names, so only accounts the writer may see are mentioned.
create function private.resolve_post_mentions()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform private.store_post_mentions(new.id, private.mentioned_accounts(new.body));
  return null;
end;
$$;
revoke execute on function private.resolve_post_mentions() from public;
comment on function private.resolve_post_mentions() is 'Trigger: resolves the mentions of a new or edited post, as its writer.';

-- A new text without an `@` mentions nobody: its trigger does not run (most texts; it spares their writes
-- the lookups). An edit always runs it, since it may take every mention out.
create trigger resolve_post_mentions
after insert on public.posts
for each row
when (strpos(new.body, '@') > 0)
execute function private.resolve_post_mentions();

create trigger resolve_edited_post_mentions
after update of body on public.posts
for each row
when (old.body is distinct from new.body)
execute function private.resolve_post_mentions();

create function private.resolve_comment_mentions()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform private.store_comment_mentions(new.id, private.mentioned_accounts(new.body));
  return null;
end;
$$;
revoke execute on function private.resolve_comment_mentions() from public;
comment on function private.resolve_comment_mentions() is 'Trigger: resolves the mentions of a new comment, as its writer.';

create trigger resolve_comment_mentions
after insert on public.comments
for each row
when (strpos(new.body, '@') > 0)
execute function private.resolve_comment_mentions();
