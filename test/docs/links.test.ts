import * as fs from 'fs';
import * as path from 'path';

/**
 * What the README and the docs link to reaches a reader of the npm package too: a relative link
 * points at a file the package ships, anything else at the repository (named in package.json),
 * where the file exists.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[]; repository: { url: string }; homepage: string; bugs: { url: string } };
const REPO_URL = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

const shipped = (file: string) =>
  file === 'package.json' || file === 'README.md' || pkg.files.some((glob) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*')}$`).test(file));

function links(page: string): string[] {
  // code blocks and inline code hold patterns, not links
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !l.startsWith('#'));
}

describe('links of the README and docs/', () => {
  test('package.json names the repository, homepage and issue tracker', () => {
    expect(REPO_URL).toMatch(/^https:\/\/github\.com\/[\w-]+\/[\w-]+$/);
    expect(pkg.homepage.startsWith(REPO_URL)).toBe(true);
    expect(pkg.bugs.url).toBe(`${REPO_URL}/issues`);
  });

  test.each(PAGES)('%s: relative links point at shipped files, repository links at existing ones', (page) => {
    const wrong: string[] = [];
    for (const link of links(page)) {
      const target = link.split('#')[0];
      if (target.startsWith(REPO_URL)) {
        const file = target.slice(REPO_URL.length).replace(/^\/(blob|tree)\/main\//, '');
        if (!fs.existsSync(path.join(ROOT, file))) wrong.push(`${link}: no ${file} in the repository`);
      } else if (!/^https?:/.test(target)) {
        const file = path.normalize(path.join(path.dirname(page), target));
        if (!fs.existsSync(path.join(ROOT, file))) wrong.push(`${link}: no such file`);
        else if (!shipped(file)) wrong.push(`${link}: ${file} is not in the npm package (package.json "files"); link it in the repository instead`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
