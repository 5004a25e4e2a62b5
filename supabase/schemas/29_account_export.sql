-- Data export (docs/PRODUCT.md, "Data export"): everything an account owns and its relations, a page of one
-- section at a time, newest first. Security invoker, filtered on the caller: the policies decide what each row
-- shows, as everywhere, so the archive holds the caller's own rows and the cards of accounts the caller may see
-- now; never another account's e-mail, a close-friends post of someone else, or who blocked the caller (those rows
-- are not the caller's to read). The facade reads it page after page, each page a statement of its own
-- (functions/api/routes/export.ts), so neither it nor the database holds the archive whole, and no statement
-- grows with the archive. Each page walks its section's index below the keyset (p_before_at, p_before_id) and
-- only then builds the items of its rows: an item the caller may no longer see (a comment under a post now hidden,
-- a banned account's card) is null, and the facade leaves it out, paging on by the keys.
create function private.account_export_page(p_section text, p_before_at timestamptz, p_before_id uuid, p_limit integer)
returns table (at timestamptz, id uuid, item jsonb)
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me constant uuid := private.uid();
begin
  case p_section
  when 'profile' then
    return query select now(), v_me, public.me() where v_me is not null;
  when 'posts' then
    return query
      select k.at, k.id, (select i.item - 'viewer' from private.post_items i where i.id = k.id)
      from (select p.created_at as at, p.id from public.posts p
            where p.author_id = v_me and (p.created_at, p.id) < (p_before_at, p_before_id)
            order by p.created_at desc, p.id desc limit p_limit) k
      order by k.at desc, k.id desc;
  when 'comments' then
    return query
      select k.at, k.id, (select i.item - 'viewer' from private.comment_items i where i.id = k.id)
      from (select c.created_at as at, c.id from public.comments c
            where c.author_id = v_me and (c.created_at, c.id) < (p_before_at, p_before_id)
            order by c.created_at desc, c.id desc limit p_limit) k
      order by k.at desc, k.id desc;
  when 'likes' then
    return query
      select l.created_at, l.post_id, jsonb_build_object('post_id', l.post_id, 'liked_at', l.created_at)
      from public.post_likes l
      where l.user_id = v_me and (l.created_at, l.post_id) < (p_before_at, p_before_id)
      order by l.created_at desc, l.post_id desc limit p_limit;
  when 'comment_likes' then
    return query
      select l.created_at, l.comment_id, jsonb_build_object('comment_id', l.comment_id, 'liked_at', l.created_at)
      from public.comment_likes l
      where l.user_id = v_me and (l.created_at, l.comment_id) < (p_before_at, p_before_id)
      order by l.created_at desc, l.comment_id desc limit p_limit;
  when 'following' then
    return query
      select k.since, k.followee_id,
        (select a.card || jsonb_build_object('status', k.status, 'since', k.since) from private.cards a where a.id = k.followee_id)
      from (select f.since, f.followee_id, f.status from public.follows f
            where f.follower_id = v_me and (f.since, f.followee_id) < (p_before_at, p_before_id)
            order by f.since desc, f.followee_id desc limit p_limit) k
      order by k.since desc, k.followee_id desc;
  when 'followers' then
    return query
      select k.since, k.follower_id,
        (select a.card || jsonb_build_object('status', k.status, 'since', k.since) from private.cards a where a.id = k.follower_id)
      from (select f.since, f.follower_id, f.status from public.follows f
            where f.followee_id = v_me and (f.since, f.follower_id) < (p_before_at, p_before_id)
            order by f.since desc, f.follower_id desc limit p_limit) k
      order by k.since desc, k.follower_id desc;
  when 'close_friends' then
    return query
      select k.created_at, k.friend_id,
        (select a.card || jsonb_build_object('since', k.created_at) from private.cards a where a.id = k.friend_id)
      from (select c.created_at, c.friend_id from public.close_friends c
            where c.owner_id = v_me and (c.created_at, c.friend_id) < (p_before_at, p_before_id)
            order by c.created_at desc, c.friend_id desc limit p_limit) k
      order by k.created_at desc, k.friend_id desc;
  when 'blocks' then
    return query
      select b.since, b.blocked_id, b.card || jsonb_build_object('since', b.since)
      from private.my_blocks() b
      where (b.since, b.blocked_id) < (p_before_at, p_before_id)
      order by b.since desc, b.blocked_id desc limit p_limit;
  when 'mutes' then
    return query
      select k.created_at, k.muted_id,
        (select a.card || jsonb_build_object('notifications_only', k.notifications_only, 'expires_at', k.expires_at, 'since', k.created_at)
         from private.cards a where a.id = k.muted_id)
      from (select m.created_at, m.muted_id, m.notifications_only, m.expires_at from public.mutes m
            where m.muter_id = v_me and (m.created_at, m.muted_id) < (p_before_at, p_before_id)
            order by m.created_at desc, m.muted_id desc limit p_limit) k
      order by k.created_at desc, k.muted_id desc;
  when 'reports' then
    return query
      select r.created_at, r.id, jsonb_build_object('id', r.id, 'target_type', r.target_type, 'target_user_id', r.target_user_id,
        'target_post_id', r.target_post_id, 'target_comment_id', r.target_comment_id, 'reason', r.reason, 'created_at', r.created_at)
      from public.reports r
      where r.reporter_id = v_me and (r.created_at, r.id) < (p_before_at, p_before_id)
      order by r.created_at desc, r.id desc limit p_limit;
  when 'notifications' then
    return query
      select k.created_at, k.id, (select i.item from private.notification_items i where i.id = k.id)
      from (select n.created_at, n.id from public.notifications n
            where n.recipient_id = v_me and (n.created_at, n.id) < (p_before_at, p_before_id)
            order by n.created_at desc, n.id desc limit p_limit) k
      order by k.created_at desc, k.id desc;
  else
    perform private.fail(400, 'invalid_value', format('No section %s in an archive', p_section));
  end case;
end;
$$;
revoke execute on function private.account_export_page(text, timestamptz, uuid, integer) from public;
grant execute on function private.account_export_page(text, timestamptz, uuid, integer) to authenticated, service_role;
comment on function private.account_export_page(text, timestamptz, uuid, integer) is
  'A page of the caller''s archive: the rows of one section (profile, posts, comments, likes, comment_likes, following, followers, close_friends, blocks, mutes, reports, notifications) below (p_before_at, p_before_id), newest first; an item the caller may not see is null.';

-- One export at a time per account: an archive is read in one transaction that holds a database connection
-- until the last row is sent, so an account exporting again and again in parallel would take every connection
-- the facade has. The lock is an advisory one of the transaction (a transaction pooler keeps nothing longer;
-- supabase/CONVENTIONS.md, "No session state"), keyed by the account, and goes with the transaction, however it
-- ends. A second export while one runs is refused at once: 429 export_in_progress, with a wait in DETAIL.
create function private.start_export()
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  if not pg_try_advisory_xact_lock(hashtextextended('export ' || private.require_uid()::text, 0)) then
    raise exception using errcode = 'PT429', hint = 'export_in_progress',
      detail = jsonb_build_object('limit', 1, 'remaining', 0, 'reset', 10)::text,
      message = 'Your account is already being exported: one export at a time; try again once it is done';
  end if;
end;
$$;
revoke execute on function private.start_export() from public;
grant execute on function private.start_export() to authenticated;
comment on function private.start_export() is
  'Begins an export of the caller''s account: 429 export_in_progress while another export of it runs.';
