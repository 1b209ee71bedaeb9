import { HttpError } from './http-error.js';

/**
 * A request body as a JSON object. Malformed JSON is 400 `parseError`, and a
 * body that is JSON but not an object (an array, a string) is 400 too:
 * neither may become a 500. An empty body reads as `{}`, which is what the
 * official client sends to PATCH when no field changes.
 */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  if (body.byteLength === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'parseError', 'The request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'parseError', 'The request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
