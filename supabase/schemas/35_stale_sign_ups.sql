-- Sign-ups never confirmed go 7 days after (docs/PRODUCT.md, "Accounts"): a flood of sign-ups to addresses nobody
-- reads leaves no account behind, and an address whose owner never got the code is free again. Each new sign-up
-- removes up to 20 of them, oldest first, in its own transaction (rows another sign-up is removing are skipped,
-- so concurrent sign-ups do not wait on each other). An invitation waits for its invitee.

create index profiles_unconfirmed_idx on public.profiles (created_at) where confirmed_at is null;

create function private.remove_stale_sign_ups()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  delete from auth.users u
  where u.id in (
    select p.id from public.profiles p
    where p.confirmed_at is null and p.created_at < now() - interval '7 days'
    order by p.created_at
    limit 20
    for update skip locked)
    and u.email_confirmed_at is null and u.invited_at is null;
  return null;
end;
$$;
revoke execute on function private.remove_stale_sign_ups() from public;
comment on function private.remove_stale_sign_ups() is
  'Trigger on auth.users: each sign-up removes up to 20 accounts never confirmed within 7 days (invitations wait).';

create trigger remove_stale_sign_ups
after insert on auth.users
for each statement execute function private.remove_stale_sign_ups();
