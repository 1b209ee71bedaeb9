// Guards on the action forms: a confirmation in words that say what and how
// many; the purge button armed only once the queue's name is typed (the
// server checks both again); select-all of bulk selections; the copy
// button of the task page.

export function startForms(): void {
  // Listened for on the document, not on each form: rows swapped in by a refresh ask too.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.dataset.confirmMessage === undefined) return;
    if (!window.confirm(form.dataset.confirmMessage || 'Are you sure?')) event.preventDefault();
  });
  document.querySelectorAll<HTMLInputElement>('input[data-confirm]').forEach((input) => {
    const expected = input.dataset.confirm;
    const button = input.form?.querySelector<HTMLButtonElement>('[data-confirm-button]');
    if (!expected || !button) return;
    const update = () => {
      button.disabled = input.value !== expected;
    };
    input.addEventListener('input', update);
    update();
  });
  document.addEventListener('change', (event) => {
    const all = event.target;
    if (!(all instanceof HTMLInputElement) || all.dataset.selectAll === undefined) return;
    document
      .querySelectorAll<HTMLInputElement>(`input[type=checkbox][form="${all.dataset.selectAll}"]`)
      .forEach((box) => (box.checked = all.checked));
  });
  document.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((button) => {
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(source.textContent ?? '');
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Copy refused by the browser';
      }
      setTimeout(() => (button.textContent = 'Copy payload'), 2000);
    });
  });
}
