// The fixed secret and claims every local stack mints its anon and service_role keys from (keys.ts), apart so the
// tests can read them: public, in this repository, for the local stack only (docs/OPERATIONS.md, "Local API keys").
export const localJwtSecret = 'daykeeper-local-stack-only-jwt-secret-never-use-it-elsewhere';
/** Fixed claims make the same key on every start: issued 2025-01-01, valid until 2050-01-01 (UTC). */
export const localKeyIssuedAt = 1735689600;
export const localKeyExpires = 2524608000;
