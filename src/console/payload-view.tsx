import { previewPayload } from './format.js';

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
