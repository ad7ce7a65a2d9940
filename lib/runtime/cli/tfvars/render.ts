/** Writes a converted environment as YAML with comments (yaml Document API, so quoting is always right). */
import { Document, isMap, isScalar, isSeq, Node, Pair, Scalar, YAMLMap } from 'yaml';
import { shownText } from '../../../config/control-characters';
import { FieldComment, KeyOutcome } from './convert';

export interface RenderInput {
  readonly environment: Record<string, unknown>;
  readonly comments: readonly FieldComment[];
  readonly outcomes: readonly KeyOutcome[];
  readonly sourceName: string;
  readonly environmentName: string;
}

/**
 * Settings listed in the header: the written file must stay within the environment files' size
 * limit (20 000 unknown variables made a 2 MB header); every one is still reported on stderr.
 */
const MAX_LISTED = 200;

/** Lists of plain scalars this short are written in flow style (`[a, b]`). */
const FLOW_MAX_ITEMS = 4;

export function renderEnvironmentYaml(input: RenderInput): string {
  const doc = new Document(input.environment, { aliasDuplicateObjects: false });
  flowShortLists(doc.contents as Node);
  for (const c of input.comments) attachComment(doc, c);

  const reported = input.outcomes.filter((o) => o.status === 'reported');
  const carried = input.outcomes.length - reported.length;
  const header = [
    ' yaml-language-server: $schema=./environment.schema.json',
    '',
    ` Environment "${input.environmentName}", converted from ${input.sourceName} by \`capi-openstack import-tfvars\`.`,
    ` ${carried} settings carried over; ${reported.length} not (fully) carried over:`,
    ...(reported.length === 0
      ? ['   (none)']
      : reported.slice(0, MAX_LISTED).flatMap((o) => {
          const key = shownText(o.key, 200);
          return o.notes.map((n, i) => `   ${i === 0 ? `${key}: ` : `${' '.repeat(key.length + 2)}`}${shownText(n, 2000)}`);
        })),
    ...(reported.length > MAX_LISTED ? [`   … and ${reported.length - MAX_LISTED} more, each reported by import-tfvars on stderr`] : []),
    '',
    ' Fields not written here keep their defaults; environments/environment.schema.json documents them all.',
    ' Check with: capi-openstack validate ' + input.environmentName,
  ];
  doc.commentBefore = header.join('\n');
  return doc.toString({ lineWidth: 0 });
}

function flowShortLists(node: Node | null): void {
  if (isMap(node)) for (const p of node.items) flowShortLists(p.value as Node);
  if (isSeq(node)) {
    if (node.items.length <= FLOW_MAX_ITEMS && node.items.every((i) => isScalar(i))) node.flow = true;
    else for (const i of node.items) flowShortLists(i as Node);
  }
}

function attachComment(doc: Document, c: FieldComment): void {
  if (c.path.length === 0) return;
  const parent = c.path.length === 1 ? doc.contents : doc.getIn(c.path.slice(0, -1), true);
  const last = c.path[c.path.length - 1];
  if (isMap(parent)) {
    const pair = (parent as YAMLMap).items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === last);
    if (!pair) return;
    if (c.inline && isScalar(pair.value)) {
      pair.value.comment = joinComment(pair.value.comment, ` ${c.text}`);
    } else if (c.inline && isSeq(pair.value) && pair.value.flow) {
      pair.value.comment = joinComment(pair.value.comment, ` ${c.text}`);
    } else {
      const key = isScalar(pair.key) ? pair.key : (pair.key = new Scalar(pair.key));
      key.commentBefore = joinComment(key.commentBefore, prefixLines(c.text));
    }
  } else if (isSeq(parent) && typeof last === 'number') {
    const item = parent.items[last];
    if (item && (isMap(item) || isScalar(item))) (item as Node).commentBefore = joinComment((item as Node).commentBefore, prefixLines(c.text));
  }
}

function prefixLines(text: string): string {
  return text
    .split('\n')
    .map((l) => ` ${l}`)
    .join('\n');
}

function joinComment(a: string | null | undefined, b: string): string {
  return a ? `${a}\n${b}` : b;
}
