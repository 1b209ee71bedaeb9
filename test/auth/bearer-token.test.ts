import { describe, expect, it } from 'vitest';
import { bearerTokenOf, MAX_TOKEN_LENGTH } from '../../src/auth/bearer-token.js';
import { isQueueError } from '../../src/core/errors.js';

const creds = (authorization?: string, oauthToken?: string) => ({ authorization, oauthToken, apiKey: undefined });

describe('bearerTokenOf', () => {
  it.each([
    ['Bearer abc.def-ghi_jkl~+/==', 'abc.def-ghi_jkl~+/=='],
    ['bearer abc', 'abc'],
    ['BeArEr   abc  ', 'abc'],
  ])('reads %j', (header, token) => {
    expect(bearerTokenOf(creds(header))).toBe(token);
  });

  it('reads oauth_token, and finds nothing in other schemes or no credentials', () => {
    expect(bearerTokenOf(creds(undefined, 'tok'))).toBe('tok');
    expect(bearerTokenOf(creds('Basic YTpi'))).toBeNull();
    expect(bearerTokenOf(creds('Basic YTpi', 'tok'))).toBe('tok');
    expect(bearerTokenOf(creds())).toBeNull();
  });

  it.each([
    ['both methods', creds('Bearer a', 'a')],
    ['an empty oauth_token', creds(undefined, '')],
    ['a bare scheme', creds('Bearer')],
    ['a token with a blank', creds('Bearer a b')],
    ['a token with a quote', creds('Bearer a"b')],
    ['a header that is no header', creds('{}')],
    ['an over-long token', creds(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`)],
  ])('refuses %s as invalid_request', (_name, credentials) => {
    let thrown: unknown;
    try {
      bearerTokenOf(credentials);
    } catch (error) {
      thrown = error;
    }
    expect(isQueueError(thrown, 'INVALID_REQUEST')).toBe(true);
    expect((thrown as { details: { wwwAuthenticate: string } }).details.wwwAuthenticate).toMatch(
      /error="invalid_request"/,
    );
  });
});
