import { checkFields, type ResponseShape } from './fields/check-fields.js';
import type { FieldSelection } from './fields/field-selection.js';
import { FieldsSyntaxError, parseFields } from './fields/parse-fields.js';
import { HttpError, invalidParameter, quote } from './http-error.js';
import type { QueryParams } from './query-params.js';

/** The parameters every method takes (discovery `parameters`), once checked. */
export interface CommonParams {
  /** `prettyPrint`: indented output; the discovery default is true. */
  readonly pretty: boolean;
  /** `fields`: the partial-response selection, or null for the whole response. */
  readonly fields: FieldSelection | null;
}

/**
 * Checks the common parameters: `alt` must be `json` (the only format the
 * discovery lists), `prettyPrint` a real boolean, `fields` a valid selection
 * for this method's response. `quotaUser` and `userIp` are accepted and
 * unused (there are no per-user quotas); `key` and `oauth_token` are
 * credentials, read by `request-credentials.ts`. Each may appear once.
 */
export function parseCommonParams(query: QueryParams, shape: ResponseShape | null): CommonParams {
  const alt = query.string('alt');
  if (alt !== undefined && alt !== 'json') {
    throw invalidParameter('alt', `Invalid value ${quote(alt)} for parameter alt: only "json" is supported`);
  }
  for (const name of ['quotaUser', 'userIp', 'key', 'oauth_token']) query.string(name);
  const pretty = query.boolean('prettyPrint') ?? true;
  const text = query.string('fields');
  if (text === undefined) return { pretty, fields: null };
  try {
    const fields = parseFields(text);
    if (shape) checkFields(fields, shape);
    return { pretty, fields };
  } catch (error) {
    if (!(error instanceof FieldsSyntaxError)) throw error;
    throw new HttpError(400, 'invalidParameter', `Invalid field selection: ${error.message}`, {
      location: { type: 'parameter', name: 'fields' },
    });
  }
}

/** `prettyPrint` as far as it can be read, for formatting an error about the other parameters. */
export function prettyForErrors(query: QueryParams | undefined): boolean {
  try {
    return query?.boolean('prettyPrint') ?? true;
  } catch {
    return true;
  }
}
