import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoWebshopFiles } from '../../local/github/demo-webshop.ts';
import type { BugCase, BugRepo } from '../cases/bugs.ts';

/**
 * The demo repositories bug cases plant their bugs in, in a clean state (every visible test
 * passing), and how each is checked: its own test command (what its base commit defines) and
 * the hidden tests' command.
 */

export const INVOICING_DIR = fileURLToPath(new URL('./invoicing/', import.meta.url));

export interface RepoChecks {
  owner: string;
  name: string;
  /** The base's full test command, hidden tests included. */
  full: string;
  /** The hidden tests alone. */
  hidden: string;
  /** Folders of tests: on a branch under test they are replaced by the base's. */
  testDirs: string[];
}

export const REPOS: Record<BugRepo, RepoChecks> = {
  webshop: {
    owner: 'demo',
    name: 'webshop',
    full: 'tsx --test test/*.test.ts',
    hidden: 'tsx --test test/hidden.test.ts',
    testDirs: ['test'],
  },
  invoicing: {
    owner: 'demo',
    name: 'invoicing',
    full: 'python3 -m unittest discover -s tests',
    hidden: 'python3 -m unittest tests.test_hidden',
    testDirs: ['tests'],
  },
};

async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__pycache__') await walk(path);
      } else files[relative(dir, path).split('\\').join('/')] = await readFile(path, 'utf8');
    }
  };
  await walk(dir);
  return files;
}

/** The repository with no bug planted: the web shop's own planted bug is fixed here. */
export async function cleanFiles(repo: BugRepo): Promise<Record<string, string>> {
  if (repo === 'invoicing') return filesOf(INVOICING_DIR);
  const files = await demoWebshopFiles();
  const checkout = files['src/checkout.ts'] ?? '';
  files['src/checkout.ts'] = checkout.replace(
    'vatFor(subtotal, options.region)',
    'vatFor(net, options.region)',
  );
  return files;
}

/** The repository with the case's bug planted, and the 1-based line the truth points at. */
export async function plantedFiles(c: BugCase): Promise<{ files: Record<string, string>; line: number }> {
  const files = await cleanFiles(c.repo);
  for (const edit of c.plant) {
    const text = files[edit.file];
    if (text === undefined) throw new Error(`${c.id}: no file ${edit.file} in ${c.repo}`);
    const count = text.split(edit.find).length - 1;
    if (count !== 1)
      throw new Error(`${c.id}: "${edit.find}" occurs ${count} times in ${edit.file}, expected once`);
    files[edit.file] = text.replace(edit.find, edit.replace);
  }
  const lines = (files[c.truth.file] ?? '').split('\n');
  const index = lines.findIndex((l) => l.includes(c.truth.near));
  if (index < 0) throw new Error(`${c.id}: "${c.truth.near}" is not in ${c.truth.file} once planted`);
  return { files, line: index + 1 };
}
