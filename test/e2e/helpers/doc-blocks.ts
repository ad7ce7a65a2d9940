/**
 * The TypeScript blocks of README.md and docs/*.md, as printed: each becomes the main.ts of its own
 * folder in a consumer project, so it is type-checked against the packaged typings and run there.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ROOT, run } from './consumer-project';

export interface DocBlock {
  /** e.g. `README.md:104` (the line of the opening fence). */
  readonly where: string;
  /** A folder name for it, e.g. `README-104`. */
  readonly id: string;
  readonly code: string;
}

/** The pages whose code blocks are promises: the README and every page under docs/. */
export function documentationPages(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
  return ['README.md', ...docs.sort()];
}

/** Every ```ts block of the pages, in page order. */
export function typescriptBlocks(): DocBlock[] {
  const blocks: DocBlock[] = [];
  for (const page of documentationPages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    for (const m of text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)) {
      const line = text.slice(0, m.index).split('\n').length;
      blocks.push({ where: `${page}:${line}`, id: `${page.replace(/\W+/g, '-')}-${line}`, code: m[1] });
    }
  }
  return blocks;
}

/**
 * The usage a block shows in comments (`// main.ts of your own cdktf app:` followed by indented
 * `//   code` lines), as code; empty when it shows none.
 */
export function commentedUsage(code: string): string {
  return [...code.matchAll(/^\/\/ {3}(.*)$/gm)].map((m) => m[1]).join('\n');
}

/** One block as it ran: the stacks it (or its commented usage) synthesized, by id. */
export interface BlockRun {
  readonly block: DocBlock;
  readonly stacks: Record<string, any>;
}

/** A variant of a block's folder: the environment file its `environments/acme.yaml` holds. */
export interface BlockFolder {
  readonly block: DocBlock;
  readonly folder: string;
  readonly acmeYaml: string;
}

/**
 * Writes each block as `<folder>/main.ts` in `consumer/doc-blocks[-esm]/` (plus `usage.ts` when it
 * shows its usage in comments), compiles them all strict against the installed package, as
 * CommonJS or as ES modules (`.mts`, module nodenext), and runs them with node in their folder
 * like `cdktf synth` would.
 */
export function runBlocks(consumer: string, folders: readonly BlockFolder[], format: 'cjs' | 'esm' = 'cjs'): Record<string, BlockRun> {
  const root = path.join(consumer, format === 'esm' ? 'doc-blocks-esm' : 'doc-blocks');
  const [ts, js] = format === 'esm' ? ['mts', 'mjs'] : ['ts', 'js'];
  const files: string[] = [];
  for (const { block, folder, acmeYaml } of folders) {
    const dir = path.join(root, folder);
    fs.mkdirSync(path.join(dir, 'environments'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'environments', 'acme.yaml'), acmeYaml);
    fs.writeFileSync(path.join(dir, `main.${ts}`), block.code);
    files.push(`${folder}/main.${ts}`);
    const usage = commentedUsage(block.code);
    if (usage) {
      // the block's own imports, plus what it exports, so the usage compiles as shown
      const imports = [...block.code.matchAll(/^import .*;$/gm)].map((m) => m[0]);
      const exported = [...block.code.matchAll(/^export (?:function|const|class) (\w+)/gm)].map((m) => m[1]);
      const main = format === 'esm' ? './main.mjs' : './main';
      fs.writeFileSync(path.join(dir, `usage.${ts}`), `${imports.join('\n')}\nimport { ${exported.join(', ')} } from '${main}';\n\n${usage}\n`);
      files.push(`${folder}/usage.${ts}`);
    }
  }
  const modules = format === 'esm' ? { module: 'nodenext', moduleResolution: 'nodenext' } : { module: 'commonjs' };
  const compilerOptions = { target: 'ES2022', ...modules, strict: true, noUnusedLocals: false, esModuleInterop: true, skipLibCheck: false, types: ['node'] };
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], root);
  const runs: Record<string, BlockRun> = {};
  for (const { block, folder } of folders) {
    const dir = path.join(root, folder);
    const env = { ...process.env, CDKTF_OUTDIR: path.join(dir, 'cdktf.out') };
    for (const file of [`main.${js}`, `usage.${js}`]) if (fs.existsSync(path.join(dir, file))) run(process.execPath, [file], dir, env);
    const stacksDir = path.join(dir, 'cdktf.out', 'stacks');
    const stacks = fs.existsSync(stacksDir) ? Object.fromEntries(fs.readdirSync(stacksDir).map((id) => [id, JSON.parse(fs.readFileSync(path.join(stacksDir, id, 'cdk.tf.json'), 'utf8'))])) : {};
    runs[folder] = { block, stacks };
  }
  return runs;
}
