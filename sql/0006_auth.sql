-- 0006: signing keys of the local token issuer.
--
-- `taskqueue token --email E` mints access tokens that every server process
-- sharing this database accepts, because the key that signs them lives here
-- rather than in one process. The first mint creates the key; rotation
-- retires it and creates the next. A retired key loses its private half at
-- once (nothing may sign with it any more) but keeps verifying until the
-- last token it could have signed has expired (verify_until).
--
-- Whoever can read this table can mint tokens: it is as sensitive as the task
-- data itself, and the local issuer can be switched off
-- (TASKQUEUE_LOCAL_ISSUER=off) where an identity provider issues tokens.

CREATE TABLE auth_signing_keys (
  -- RFC 7638 thumbprint of the public key; tokens name it in their `kid` header.
  kid               text        PRIMARY KEY,
  algorithm         text        NOT NULL CHECK (algorithm = 'ES256'),
  public_jwk        jsonb       NOT NULL,
  -- NULL once the key is retired.
  private_jwk       jsonb,
  -- Longest lifetime of a token this key signs: how long it must verify after retirement.
  max_token_seconds integer     NOT NULL CHECK (max_token_seconds > 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  retired_at        timestamptz,
  -- NULL while active; after retirement, when its last token expires (or now, when revoked).
  verify_until      timestamptz,
  CHECK ((retired_at IS NULL) = (private_jwk IS NOT NULL)),
  CHECK ((retired_at IS NULL) = (verify_until IS NULL))
);

-- At most one active key: processes creating the first key at the same moment
-- (two servers starting, or a server and the CLI) end up signing with the same one.
CREATE UNIQUE INDEX auth_signing_keys_one_active ON auth_signing_keys ((true)) WHERE retired_at IS NULL;

COMMENT ON TABLE auth_signing_keys IS 'ES256 keys of the local token issuer (taskqueue token); one active, retired ones verify until their tokens expire.';
