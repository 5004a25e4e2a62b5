-- API: comments, replies, their likes, deletion and reports.

create function private.add_comment(p_post_id uuid, p_parent_id uuid, p_body text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_comment public.comments;
begin
  perform private.require_uid();
  insert into public.comments (post_id, parent_id, body)
  values (p_post_id, p_parent_id, coalesce(p_body, ''))
  returning * into v_comment;
  return private.comment_item(v_comment.id);
end;
$$;
revoke execute on function private.add_comment(uuid, uuid, text) from public;
grant execute on function private.add_comment(uuid, uuid, text) to authenticated, service_role;
comment on function private.add_comment(uuid, uuid, text) is 'Writes the caller''s comment (a reply when p_parent_id is given).';

create function public.comment_post(p_post_id uuid, p_body text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.add_comment((private.find_post(p_post_id)).id, null, p_body)
$$;
revoke execute on function public.comment_post(uuid, text) from public;
grant execute on function public.comment_post(uuid, text) to authenticated, service_role;
comment on function public.comment_post(uuid, text) is 'Comment on a visible post (1 to 500 characters).';

create function public.reply_comment(p_comment_id uuid, p_body text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_parent public.comments := private.find_comment(p_comment_id);
begin
  return private.add_comment(v_parent.post_id, v_parent.id, p_body);
end;
$$;
revoke execute on function public.reply_comment(uuid, text) from public;
grant execute on function public.reply_comment(uuid, text) to authenticated, service_role;
comment on function public.reply_comment(uuid, text) is 'Reply to a visible comment (1 to 500 characters).';

create function public.get_comment(p_comment_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_item jsonb := private.comment_item(p_comment_id);
begin
  if v_item is null then
    perform private.find_comment(p_comment_id); -- the 404
  end if;
  return v_item;
end;
$$;
revoke execute on function public.get_comment(uuid) from public;
grant execute on function public.get_comment(uuid) to anon, authenticated, service_role;
comment on function public.get_comment(uuid) is 'A visible comment; 404 otherwise.';

-- Top-level comments of a post (p_parent null) or replies to a comment, newest first: one query per case,
-- each served by its index (comments_post_idx, comments_parent_idx) in list order.
create function private.comments_page(p_post_id uuid, p_parent_id uuid, p_cursor text, p_limit integer, p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_newer record := private.decode_newer_than(p_newer_than);
  v_rows jsonb;
begin
  if p_parent_id is null then
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.comment_items i
      where i.post_id = p_post_id and i.parent_id is null and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  else
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.comment_items i
      where i.parent_id = p_parent_id and i.post_id = p_post_id and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  end if;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.comments_page(uuid, uuid, text, integer, text) from public;
grant execute on function private.comments_page(uuid, uuid, text, integer, text) to anon, authenticated, service_role;
comment on function private.comments_page(uuid, uuid, text, integer, text) is
  'A page of a post''s top-level comments (p_parent_id null) or of a comment''s replies, newest first (newer than p_newer_than when given).';

create function public.post_comments(p_post_id uuid, p_cursor text default null, p_limit integer default null,
  p_newer_than text default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.comments_page((private.find_post(p_post_id)).id, null, p_cursor, p_limit, p_newer_than)
$$;
revoke execute on function public.post_comments(uuid, text, integer, text) from public;
grant execute on function public.post_comments(uuid, text, integer, text) to anon, authenticated, service_role;
comment on function public.post_comments(uuid, text, integer, text) is
  'Top-level comments of a visible post by visible authors, newest first (newer than p_newer_than when given).';

create function public.comment_replies(p_comment_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_parent public.comments := private.find_comment(p_comment_id);
begin
  return private.comments_page(v_parent.post_id, v_parent.id, p_cursor, p_limit);
end;
$$;
revoke execute on function public.comment_replies(uuid, text, integer) from public;
grant execute on function public.comment_replies(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.comment_replies(uuid, text, integer) is 'Replies to a visible comment, newest first.';

create function public.like_comment(p_comment_id uuid, p_like boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_comment public.comments := private.find_comment(p_comment_id);
  v_liked boolean := exists (select 1 from public.comment_likes l where l.comment_id = v_comment.id and l.user_id = v_me);
begin
  if coalesce(p_like, not v_liked) then
    insert into public.comment_likes (comment_id) values (v_comment.id) on conflict do nothing;
  else
    delete from public.comment_likes l where l.comment_id = v_comment.id and l.user_id = v_me;
  end if;
  return private.comment_item(p_comment_id);
end;
$$;
revoke execute on function public.like_comment(uuid, boolean) from public;
grant execute on function public.like_comment(uuid, boolean) to authenticated, service_role;
comment on function public.like_comment(uuid, boolean) is 'Like or unlike a comment; p_like null toggles.';

create function public.comment_likes(p_comment_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.likers_page('comment', (private.find_comment(p_comment_id)).id, p_cursor, p_limit)
$$;
revoke execute on function public.comment_likes(uuid, text, integer) from public;
grant execute on function public.comment_likes(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.comment_likes(uuid, text, integer) is 'Who liked a visible comment (visible users only), newest first.';

-- The delete policy only reaches rows the caller can see. This deletes by right even a comment the caller
-- cannot see: a post's author keeps control of the comments under their post after blocking (or being
-- blocked by) the commenter, whose comment everyone else still sees.
create function private.delete_comment_by_right(p_comment_id uuid)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with deleted as (
    delete from public.comments c
    where c.id = p_comment_id and private.may_delete_comment(c.id)
    returning c.id
  )
  select exists (select 1 from deleted)
$$;
revoke execute on function private.delete_comment_by_right(uuid) from public;
grant execute on function private.delete_comment_by_right(uuid) to authenticated, service_role;
comment on function private.delete_comment_by_right(uuid) is
  'Deletes the comment if the caller may (its author, the post''s author, an admin), even one hidden from them.';

create function public.delete_comment(p_comment_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.require_uid();
  if not private.delete_comment_by_right(p_comment_id) then
    -- Not deleted: a 404 when the comment is missing or invisible to the caller, else a 403.
    perform private.find_comment(p_comment_id);
    perform private.fail(403, 'forbidden', 'Only the comment''s author, the post''s author or an admin may delete it');
  end if;
  return jsonb_build_object('deleted', true, 'id', p_comment_id);
end;
$$;
revoke execute on function public.delete_comment(uuid) from public;
grant execute on function public.delete_comment(uuid) to authenticated, service_role;
comment on function public.delete_comment(uuid) is 'Delete a comment and its replies (its author, the post''s author, or an admin).';

create function public.report_comment(p_comment_id uuid, p_reason text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.file_report('comment', null, null, (private.find_comment(p_comment_id)).id, p_reason)
$$;
revoke execute on function public.report_comment(uuid, text) from public;
grant execute on function public.report_comment(uuid, text) to authenticated, service_role;
comment on function public.report_comment(uuid, text) is 'Report a visible comment; one open report per reporter per comment.';
