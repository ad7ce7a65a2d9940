/**
 * Text that lands in a workload node's user data. Cluster API's kubeadm bootstrap provider starts the
 * cloud-init document it renders with `## template: jinja` (bootstrap/kubeadm/pkg/cloudinit,
 * `cloudConfigHeader`, v1.14), so cloud-init renders the WHOLE document (file contents, commands,
 * the kubeadm configuration) as a Jinja template, as root, before it parses the YAML. A value
 * holding `{{`, `{%` or `{#` would be evaluated there, or break the node's boot as a syntax error.
 *
 * Jinja starts a tag only at those three pairs, so each `{` that opens one is written as the Jinja
 * expression `{{ '{' }}`, which renders back to `{`: the rendered document holds the original bytes.
 * (A `{% raw %}` block would not: cloud-init renders with `trim_blocks`, which eats the line break
 * after `{% endraw %}`.) A `{` at the very end is escaped too, as the text that follows it is not
 * ours to know. Contents Cluster API writes base64-encoded are not rendered as text and stay as they are.
 */

/** What cloud-init's Jinja renders back to a single `{`. */
export const JINJA_OPEN_BRACE = "{{ '{' }}";

const TAG_START = /\{(?=[{%#]|$)/g;

/** `text` with every Jinja tag start escaped; renders back to `text` exactly. */
export function jinjaLiteral(text: string): string {
  return text.replace(TAG_START, JINJA_OPEN_BRACE);
}

/** How many characters {@link jinjaLiteral} adds to `text` (eight per escaped `{`). */
export function jinjaLiteralGrowth(text: string): number {
  return (JINJA_OPEN_BRACE.length - 1) * (text.match(TAG_START)?.length ?? 0);
}
