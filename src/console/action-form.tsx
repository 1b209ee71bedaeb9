import type { Viewer } from './console-viewer.js';

/** A POST form with the CSRF token: every action goes this way. */
export function ActionForm(props: {
  readonly viewer: Viewer;
  readonly action: string;
  readonly children?: unknown;
  readonly class?: string;
}) {
  return (
    <form method="post" action={props.action} class={props.class ?? 'inline'}>
      <input type="hidden" name="_csrf" value={props.viewer.csrf} />
      {props.children}
    </form>
  );
}

/**
 * An action form the client script asks about before it is sent, in the
 * words of `confirm` (which say what and how many). Without the script the
 * form is sent as it is, as any POST: the server's checks still hold.
 */
export function ConfirmedForm(props: {
  readonly viewer: Viewer;
  readonly action: string;
  readonly confirm: string;
  readonly children?: unknown;
}) {
  return (
    <form method="post" action={props.action} class="inline" data-confirm-message={props.confirm}>
      <input type="hidden" name="_csrf" value={props.viewer.csrf} />
      {props.children}
    </form>
  );
}

/**
 * The form the row checkboxes of a list belong to (by `form=`): what to do
 * with the selection. The server answers with a page that names the
 * selected tasks and their count, and acts only when that count comes back.
 */
export function BulkBar(props: {
  readonly viewer: Viewer;
  readonly base: string;
  readonly form: string;
  readonly ops: readonly (readonly [string, string])[];
}) {
  return (
    <form method="post" action={`${props.base}/bulk`} id={props.form} class="filter bulk">
      <input type="hidden" name="_csrf" value={props.viewer.csrf} />
      <label for={`${props.form}-op`}>With the selected</label>
      <select id={`${props.form}-op`} name="op">
        {props.ops.map(([op, label]) => (
          <option value={op}>{label}</option>
        ))}
      </select>
      <button type="submit" class="quiet">
        Review…
      </button>
    </form>
  );
}
