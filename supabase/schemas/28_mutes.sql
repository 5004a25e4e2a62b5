-- Mutes (docs/PRODUCT.md, "Mutes"): quieter than a block. Muting an account takes its posts out of your feed
-- and your post search, and stops its acts from notifying you; with notifications_only, only the latter. Its
-- profile and posts stay reachable by a direct request, and it is never told: a mute is seen by its owner only,
-- and muting an account you may not see is refused as an unknown one. A mute ends at its expires_at, or when a
-- block comes between the two (the block wins).

create table public.mutes (
  muter_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  muted_id uuid not null references public.profiles (id) on delete cascade,
  notifications_only boolean not null default false,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (muter_id, muted_id),
  check (muter_id <> muted_id),
  check (expires_at is null or expires_at > created_at)
);
alter table public.mutes enable row level security;
create index mutes_muter_idx on public.mutes (muter_id, created_at desc, muted_id desc);
create index mutes_muted_idx on public.mutes (muted_id);

comment on table public.mutes is 'muter → muted: the muted account''s posts leave the muter''s feed and search, its acts stop notifying the muter. Seen by the muter only.';
comment on column public.mutes.muter_id is 'Who mutes; the caller by default.';
comment on column public.mutes.muted_id is 'Who is muted (never told).';
comment on column public.mutes.notifications_only is 'Only its notifications are muted; its posts stay in the feed and search.';
comment on column public.mutes.expires_at is 'When the mute ends by itself; null: until undone.';
comment on column public.mutes.created_at is 'When the mute was made.';

grant select, insert (muted_id, notifications_only, expires_at), update (notifications_only, expires_at), delete
  on public.mutes to authenticated;
grant all on public.mutes to service_role;

create policy "muters see their mutes" on public.mutes
for select to authenticated
using (muter_id = (select private.uid()));

create policy "users mute accounts they can see, as themselves" on public.mutes
for insert to authenticated
with check (muter_id = (select private.uid()) and exists (select 1 from public.profiles u where u.id = muted_id offset 0));

create policy "muters change their mutes" on public.mutes
for update to authenticated
using (muter_id = (select private.uid()))
with check (muter_id = (select private.uid()));

create policy "muters end their mutes" on public.mutes
for delete to authenticated
using (muter_id = (select private.uid()));

-- The accounts the caller mutes now (their posts too, unless p_notifications: every mute counts). For the
-- feed and search (posts) and the notices' trigger helper, which asks about the recipient instead.
create function private.accounts_i_mute(p_notifications boolean default false)
returns setof uuid
language plpgsql
stable
security definer
rows 10
set search_path = ''
as $$
begin
  return query select m.muted_id from public.mutes m
    where m.muter_id = private.uid() and (p_notifications or not m.notifications_only)
      and (m.expires_at is null or m.expires_at > now());
end;
$$;
revoke execute on function private.accounts_i_mute(boolean) from public;
grant execute on function private.accounts_i_mute(boolean) to anon, authenticated, service_role;
comment on function private.accounts_i_mute(boolean) is
  'The accounts the caller mutes now: those whose posts are muted, or with p_notifications every muted account; none for anonymous.';

-- Whether p_recipient mutes p_actor now (any mute: notifications are muted by both kinds).
create function private.mutes_now(p_recipient uuid, p_actor uuid)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return exists (select 1 from public.mutes m
                 where m.muter_id = p_recipient and m.muted_id = p_actor and (m.expires_at is null or m.expires_at > now()));
end;
$$;
revoke execute on function private.mutes_now(uuid, uuid) from public;
comment on function private.mutes_now(uuid, uuid) is 'Whether the recipient mutes the actor now (for the notification triggers).';

-- A block between the two ends a mute either way.
create function private.end_mutes_on_block()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.mutes m
  where (m.muter_id = new.blocker_id and m.muted_id = new.blocked_id)
     or (m.muter_id = new.blocked_id and m.muted_id = new.blocker_id);
  return null;
end;
$$;
revoke execute on function private.end_mutes_on_block() from public;
comment on function private.end_mutes_on_block() is 'Trigger: a new block ends the mutes between the pair.';

create trigger end_mutes_on_block
after insert on public.blocks
for each row execute function private.end_mutes_on_block();

-- API ------------------------------------------------------------------------------------------------------

-- GET /mutes is a path of the API: nobody may be called that (02_profiles.sql).
insert into private.reserved_usernames (name) values ('mutes') on conflict do nothing;

-- Mutes or unmutes an account: p_mute null toggles. p_notifications_only mutes its notifications alone;
-- p_duration (seconds, up to a year) ends the mute by itself. Muting again changes the kind and the end.
create function public.mute(p_username text, p_mute boolean default null, p_notifications_only boolean default false,
  p_duration integer default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_target uuid := (private.find_user(p_username)).id;
  v_muting boolean := exists (select 1 from public.mutes m where m.muter_id = v_me and m.muted_id = v_target
                              and (m.expires_at is null or m.expires_at > now()));
  v_expires timestamptz;
begin
  if v_target = v_me then
    perform private.fail(400, 'cannot_mute_self', 'You cannot mute yourself');
  end if;
  if p_duration is not null and (p_duration < 60 or p_duration > 366 * 86400) then
    perform private.fail(400, 'invalid_duration', 'A mute lasts from 60 seconds to a year (in seconds), or omit it to mute until you unmute');
  end if;
  v_expires := now() + make_interval(secs => p_duration);
  if coalesce(p_mute, not v_muting) then
    insert into public.mutes (muted_id, notifications_only, expires_at)
    values (v_target, coalesce(p_notifications_only, false), v_expires)
    on conflict (muter_id, muted_id) do update
      set notifications_only = excluded.notifications_only, expires_at = excluded.expires_at;
    v_muting := true;
  else
    delete from public.mutes m where m.muter_id = v_me and m.muted_id = v_target;
    v_muting := false;
  end if;
  return jsonb_build_object('muted', v_muting, 'notifications_only', v_muting and coalesce(p_notifications_only, false),
    'expires_at', case when v_muting then v_expires end,
    'user', jsonb_build_object('id', v_target, 'username', lower(btrim(p_username))));
end;
$$;
revoke execute on function public.mute(text, boolean, boolean, integer) from public;
grant execute on function public.mute(text, boolean, boolean, integer) to authenticated, service_role;
comment on function public.mute(text, boolean, boolean, integer) is
  'Mute or unmute an account (p_mute null toggles): its posts leave your feed and search and its acts stop notifying you (p_notifications_only: only that), for p_duration seconds or until undone. It is never told.';

-- The caller's mutes now, newest first: the account's card (as in the list of blocks), the kind and the end.
create function public.mutes(p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.muted_id,
           'item', x.card || jsonb_build_object('notifications_only', x.notifications_only, 'expires_at', x.expires_at, 'since', x.created_at))
         order by x.created_at desc, x.muted_id desc), '[]'::jsonb)
  into v_rows
  from (
    -- The cards as the caller may see them (a muted account banned since is left out).
    select m.created_at, m.muted_id, m.notifications_only, m.expires_at, a.card
    from public.mutes m join private.cards a on a.id = m.muted_id
    where m.muter_id = v_me and (m.expires_at is null or m.expires_at > now())
      and (m.created_at, m.muted_id) < (v_after.at, v_after.id)
    order by m.created_at desc, m.muted_id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.mutes(text, integer) from public;
grant execute on function public.mutes(text, integer) to authenticated, service_role;
comment on function public.mutes(text, integer) is 'The accounts the caller mutes now, newest first, with the kind of mute and when it ends.';
