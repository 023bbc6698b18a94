/**
 * What the plan editor does to parsed Markdown (mdast) before it becomes HTML, so that every part
 * of the text the agent reads is drawn for the reviewer. Markdown, as HTML renders it, draws some
 * of its source as nothing: definitions, footnotes, a fence's info string, table cells past the
 * header's width, an image's address, a link the sanitizer strips. Each is shown here as what it
 * is, mostly as the text it is (in code); nothing is ever parsed as HTML. Pure.
 */
import { defaultSchema } from 'rehype-sanitize';

/** An mdast node, as far as this transform reads and writes it. */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  label?: string | null;
  identifier?: string;
  url?: string;
  title?: string | null;
  alt?: string | null;
  lang?: string | null;
  meta?: string | null;
  align?: (string | null)[] | null;
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** Nodes whose children are blocks: raw HTML there is a block of code, elsewhere a code span. */
const BLOCK_PARENTS = new Set(['root', 'listItem', 'blockquote', 'footnoteDefinition']);

/**
 * Whether the sanitizer (rehype-sanitize's GitHub schema) keeps `url` as a link's `href` or an
 * image's `src`: a relative address, or one of the schema's protocols (as it checks them: the
 * text before the first colon, unless a `/`, `?` or `#` comes first; case-sensitive).
 */
export function sanitizerKeepsUrl(url: string, attribute: 'href' | 'src'): boolean {
  const protocols = defaultSchema.protocols?.[attribute] ?? [];
  const colon = url.indexOf(':');
  if (colon < 0) return true;
  for (const stop of ['/', '?', '#']) {
    const at = url.indexOf(stop);
    if (at > -1 && colon > at) return true;
  }
  return protocols.some((p) => colon === p.length && url.startsWith(p));
}

/**
 * The unified plugin: raw HTML as code (a reviewer sees that the plan carries markup, an HTML
 * comment included); a link reference definition and a footnote definition as the lines they are
 * (Markdown draws the first as nothing, and the second only where it is referenced, renumbered,
 * at the end); a footnote reference as written (`[^x]`); a fence's info string above its code; a
 * table row's cells past the header's width as cells; a link or an image whose address the
 * sanitizer would strip as its source text.
 */
export function nothingHidden() {
  return (tree: MdNode, file: { value?: unknown }) => {
    const source = typeof file.value === 'string' ? file.value : '';
    const sourceOf = (n: MdNode): string | undefined => {
      const s = n.position?.start.offset;
      const e = n.position?.end.offset;
      return source && s !== undefined && e !== undefined ? source.slice(s, e) : undefined;
    };
    const visit = (node: MdNode): void => {
      if (!node.children) return;
      if (node.type === 'table') widenTable(node);
      const out: MdNode[] = [];
      for (const child of node.children) {
        switch (child.type) {
          case 'html':
            out.push({ type: BLOCK_PARENTS.has(node.type) ? 'code' : 'inlineCode', value: child.value ?? '' });
            break;
          case 'definition':
            out.push({ type: 'code', value: sourceOf(child) ?? `[${child.label ?? child.identifier ?? ''}]: ${child.url ?? ''}${child.title ? ` "${child.title}"` : ''}` });
            break;
          case 'footnoteDefinition':
            out.push({ type: 'code', value: sourceOf(child) ?? `[^${child.label ?? child.identifier ?? ''}]:` });
            break;
          case 'footnoteReference':
            out.push({ type: 'text', value: `[^${child.label ?? child.identifier ?? ''}]` });
            break;
          case 'link':
          case 'image':
            if (sanitizerKeepsUrl(child.url ?? '', child.type === 'link' ? 'href' : 'src')) {
              visit(child);
              out.push(child);
            } else out.push({ type: 'inlineCode', value: sourceOf(child) ?? child.url ?? '' });
            break;
          case 'code': {
            const info = [child.lang, child.meta].filter(Boolean).join(' ');
            if (info) out.push({ type: 'paragraph', children: [{ type: 'inlineCode', value: info }] });
            out.push(child);
            break;
          }
          default:
            visit(child);
            out.push(child);
        }
      }
      node.children = out;
    };
    visit(tree);
  };
}

/** A table as wide as its longest row: HTML draws a row's cells only up to the header's width. */
function widenTable(table: MdNode): void {
  const align = table.align ?? [];
  const widest = Math.max(align.length, ...(table.children ?? []).map((r) => r.children?.length ?? 0));
  if (widest > align.length) table.align = [...align, ...Array<null>(widest - align.length).fill(null)];
}
