import { XMLParser } from 'fast-xml-parser';

/**
 * JUnit XML as CodeBuild's report groups read it (`file-format: JUNITXML`): every `<testcase>`
 * under `<testsuites>` / `<testsuite>` (nested suites too) is a test case; one with `<failure>`
 * is FAILED, with `<error>` ERROR, with `<skipped>` SKIPPED, else SUCCEEDED. Its prefix is the
 * case's `classname` and its suite the enclosing `<testsuite name>`; `time` is in seconds.
 * Vitest's `--reporter=junit` and Node's `--test-reporter=junit` write this format.
 */

export type TestStatus = 'SUCCEEDED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'UNKNOWN';

export interface ParsedTestCase {
  name: string;
  prefix: string;
  suite?: string | undefined;
  status: TestStatus;
  durationInNanoSeconds: number;
  message?: string | undefined;
}

/** A report file that is not JUnit XML. */
export class InvalidJunitError extends Error {
  override readonly name = 'InvalidJunitError';
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
  processEntities: true,
});

/** The test cases of one JUnit XML document (a suite's own cases before those of its inner suites). */
export function parseJunit(xml: string): ParsedTestCase[] {
  let document: Node;
  try {
    document = parser.parse(xml, true) as Node;
  } catch (cause) {
    throw new InvalidJunitError(`not XML: ${(cause as Error).message}`, { cause });
  }
  const root = (document.testsuites ?? document.testsuite) as Node | Node[] | undefined;
  if (root === undefined) throw new InvalidJunitError('no <testsuites> or <testsuite> element');
  const cases: ParsedTestCase[] = [];
  const visit = (node: Node, suite: string | undefined) => {
    for (const testCase of asNodes(node.testcase)) cases.push(testCaseOf(testCase, suite));
    for (const inner of asNodes(node.testsuite)) visit(inner, text(inner['@name']) ?? suite);
  };
  for (const node of Array.isArray(root) ? root : [root]) {
    visit(node, document.testsuites === undefined ? text(node['@name']) : undefined);
  }
  return cases;
}

function testCaseOf(node: Node, suite: string | undefined): ParsedTestCase {
  const failure = asNodes(node.failure)[0];
  const error = asNodes(node.error)[0];
  const skipped = node.skipped !== undefined;
  const status: TestStatus = failure ? 'FAILED' : error ? 'ERROR' : skipped ? 'SKIPPED' : 'SUCCEEDED';
  const detail = failure ?? error;
  const seconds = Number(text(node['@time']) ?? '0');
  return {
    name: text(node['@name']) ?? '',
    prefix: text(node['@classname']) ?? '',
    ...(suite === undefined ? {} : { suite }),
    status,
    durationInNanoSeconds: Number.isFinite(seconds) ? Math.round(seconds * 1e9) : 0,
    ...(detail === undefined
      ? {}
      : { message: (text(detail['@message']) ?? text(detail['#text']) ?? '').slice(0, 5_000) }),
  };
}

function asNodes(value: unknown): Node[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  // `<failure/>` with no attributes parses as an empty string: still a failure.
  return list.map((item) => (item !== null && typeof item === 'object' ? (item as Node) : {}));
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}
