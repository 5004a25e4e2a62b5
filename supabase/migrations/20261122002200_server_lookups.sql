-- The e-mail behind a username is for the facade's login alone, which asks as service_role: no client role
-- may read it, even through a direct SQL session or a future exposure of the private schema.
revoke execute on function private.email_for_login(text) from anon;
grant execute on function private.email_for_login(text) to service_role;
