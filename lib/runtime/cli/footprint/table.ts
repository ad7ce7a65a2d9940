/** Plain-text tables: left-aligned text columns, right-aligned number columns. */

export interface Column {
  readonly title: string;
  readonly align?: 'left' | 'right';
}

export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[], footer: readonly (readonly string[])[] = []): string {
  const all = [columns.map((c) => c.title), ...rows, ...footer];
  const widths = columns.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    columns
      .map((c, i) => (c.align === 'right' ? (r[i] ?? '').padStart(widths[i]) : (r[i] ?? '').padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(all[0]), rule, ...rows.map(line), ...(footer.length > 0 ? [rule, ...footer.map(line)] : [])].join('\n');
}
