// Sortable columns (and a "Sort by" choice, with the triage's rank) and the live name filter of the queues table. Both are
// kept across refreshes: the live loop calls `restoreTables` after swapping
// a fresh table in.

interface SortState {
  key: string;
  descending: boolean;
}
const sorts = new Map<string, SortState>();

/** What a cell sorts by: its data-sort, else its text (counts lose their thousands separators). */
function cellOf(row: HTMLTableRowElement, index: number): string {
  const cell = row.cells[index];
  if (!cell) return '';
  const text = cell.dataset.sort ?? cell.textContent?.trim() ?? '';
  return /^[\d,]+$/.test(text) ? text.replace(/,/g, '') : text;
}

function sortTable(table: HTMLTableElement): void {
  const state = sorts.get(table.id);
  const headers = [...table.tHead!.rows[0]!.cells];
  headers.forEach((th) => th.removeAttribute('aria-sort'));
  const choice = document.querySelector<HTMLSelectElement>(`select[data-sort-table="${table.id}"]`);
  if (choice) choice.value = state?.key ?? 'rank';
  if (!state) return;
  const body = table.tBodies[0]!;
  const rows = [...body.rows].filter((row) => row.cells.length > 1);
  if (state.key === 'rank') {
    // The triage's order, as the server sent it.
    rows.sort((a, b) => Number(a.dataset.rank) - Number(b.dataset.rank));
    rows.forEach((row) => body.appendChild(row));
    return;
  }
  const index = headers.findIndex((th) => th.dataset.sortKey === state.key);
  if (index < 0) return;
  headers[index]!.setAttribute('aria-sort', state.descending ? 'descending' : 'ascending');
  const numeric = rows.every((row) => cellOf(row, index) === '' || !Number.isNaN(Number(cellOf(row, index))));
  rows.sort((a, b) => {
    const x = cellOf(a, index);
    const y = cellOf(b, index);
    const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
    return state.descending ? -order : order;
  });
  rows.forEach((row) => body.appendChild(row));
}

function filterTable(table: HTMLTableElement): void {
  const input = document.querySelector<HTMLInputElement>(`input[data-filter-table="${table.id}"]`);
  const needle = input?.value.trim().toLowerCase() ?? '';
  [...table.tBodies[0]!.rows].forEach((row) => {
    const name = row.dataset.queue;
    if (name !== undefined) row.hidden = needle !== '' && !name.toLowerCase().includes(needle);
  });
}

/** Wires the sort buttons of a table (once per table element). */
function arm(table: HTMLTableElement): void {
  // A table a refresh left in place (nothing changed) is armed already.
  if (table.dataset.armed !== undefined) return;
  table.dataset.armed = '';
  table.querySelectorAll<HTMLButtonElement>('button[data-sort-by]').forEach((button) => {
    button.addEventListener('click', () => {
      const key = button.dataset.sortBy!;
      const previous = sorts.get(table.id);
      // Numbers sort biggest first on the first click: the question is usually "which is worst".
      const firstDescending = button.closest('th')?.classList.contains('num') ?? false;
      sorts.set(table.id, { key, descending: previous?.key === key ? !previous.descending : firstDescending });
      sortTable(table);
    });
  });
}

export function restoreTables(root: ParentNode = document): void {
  root.querySelectorAll<HTMLTableElement>('table[data-sortable]').forEach((table) => {
    arm(table);
    sortTable(table);
    filterTable(table);
  });
}

export function startTables(): void {
  restoreTables();
  // "Sort by": the same sorts as the column headers (hidden on a phone), and the triage's rank.
  document.querySelectorAll<HTMLSelectElement>('select[data-sort-table]').forEach((choice) => {
    choice.closest('[hidden]')?.removeAttribute('hidden');
    choice.addEventListener('change', () => {
      const table = document.getElementById(choice.dataset.sortTable ?? '');
      if (!(table instanceof HTMLTableElement)) return;
      const numeric = table.querySelector(`th[data-sort-key="${choice.value}"]`)?.classList.contains('num') ?? false;
      sorts.set(table.id, { key: choice.value, descending: numeric });
      sortTable(table);
    });
  });
  document.querySelectorAll<HTMLInputElement>('input[data-filter-table]').forEach((input) => {
    input.addEventListener('input', () => {
      const table = document.getElementById(input.dataset.filterTable ?? '');
      if (table instanceof HTMLTableElement) filterTable(table);
    });
  });
}
