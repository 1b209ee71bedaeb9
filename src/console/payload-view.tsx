import { formatSize, previewPayload } from './format.js';
import type { PayloadView } from './payload-detail.js';

/** A payload's preview in a table: its text, or hex when binary, cut short. */
export function Payload(props: { readonly payload: Uint8Array }) {
  const preview = previewPayload(props.payload);
  if (preview.kind === 'empty') return <span class="hint">empty</span>;
  return (
    <code class={`payload ${preview.kind}`}>
      {preview.text}
      {preview.truncated ? ' …' : ''}
    </code>
  );
}

/** A whole payload's size and kind, as a task's or a dead letter's page lists it ("12 B, JSON"). */
export function payloadSummary(payload: Uint8Array, view: PayloadView): string {
  const kind =
    view.kind === 'json' ? 'JSON' : view.kind === 'text' ? 'text' : view.kind === 'empty' ? 'empty' : 'binary';
  return `${formatSize(payload.length)}, ${kind}`;
}

/** A whole payload on a task's or a dead letter's page, with its copy button; nothing when empty. */
export function FullPayload(props: { readonly view: PayloadView }) {
  const { view } = props;
  if (view.kind === 'empty') return null;
  return (
    <div class="payload-full">
      <button type="button" class="copy" data-copy="payload-text" hidden>
        Copy payload
      </button>
      <pre class={`payload ${view.kind}`} id="payload-text" tabindex={0}>
        {view.text}
      </pre>
      {view.truncated && <p class="hint">The first 64 KiB are shown as hex.</p>}
    </div>
  );
}
