import type { Viewer } from './console-viewer.js';

/** A POST form with the CSRF token: every action goes this way. */
export function ActionForm(props: { readonly viewer: Viewer; readonly action: string; readonly children?: unknown; readonly class?: string }) {
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
export function ConfirmedForm(props: { readonly viewer: Viewer; readonly action: string; readonly confirm: string; readonly children?: unknown }) {
  return (
    <form method="post" action={props.action} class="inline" data-confirm-message={props.confirm}>
      <input type="hidden" name="_csrf" value={props.viewer.csrf} />
      {props.children}
    </form>
  );
}
