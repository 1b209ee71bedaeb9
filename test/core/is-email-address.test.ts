import { describe, expect, it } from 'vitest';
import { isEmailAddress } from '../../src/core/is-email-address.js';

describe('isEmailAddress', () => {
  it.each([
    ['a@example.com'],
    ['first.last+tag@sub.example.co.uk'],
    ['123456789-compute@developer.gserviceaccount.com'],
    ['a@b'],
  ])('accepts %j', (text) => {
    expect(isEmailAddress(text)).toBe(true);
  });

  it.each([
    [''],
    ['a'],
    ['@example.com'],
    ['a@'],
    ['a@@example.com'],
    ['a@b@example.com'],
    ['a b@example.com'],
    ['a@example.com '],
    ['a@exa\tmple.com'],
    ['a@example.com,b@example.com c'],
  ])('rejects %j', (text) => {
    expect(isEmailAddress(text)).toBe(false);
  });
});
