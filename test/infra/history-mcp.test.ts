import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_READERS_ENV } from '../../lambdas/history-mcp/config.ts';
import { configProblems } from './config-problems.ts';
import {
  functionResource,
  renderIntrinsics,
  resourcesOfType,
  statementsOf,
  templateOf,
  variablesOf,
} from './template.ts';

/** The stack output that gives the history MCP server's URL (stated here, not imported: the value is what this test checks). */
const HISTORY_MCP_OUTPUT = 'HistoryMcpUrl';

/**
 * The conversation history as a read-only MCP server in the stack: deployed only when enabled,
 * behind a Function URL that requires SigV4 (AWS_IAM), with a role that reads the table and
 * writes nothing, and its URL as a stack output.
 */

const READERS = [
  { principal: 'arn:aws:iam::123456789012:role/oncall', workflows: ['incident_investigation'] },
  { principal: '123456789012', workflows: ['bug_investigation'] },
];
const ENABLED = { mcp: { historyServer: { enabled: true, readers: READERS } } };

/** Every action of the DynamoDB read grant; anything else of DynamoDB writes or administers. */
const TABLE_READS = new Set([
  'dynamodb:BatchGetItem',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:Query',
  'dynamodb:GetItem',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
]);

const urlsOf = (template: Template) =>
  Object.values(resourcesOfType(template, 'AWS::Lambda::Url')).map((url) => ({
    authType: url.Properties.AuthType,
    target: renderIntrinsics(url.Properties.TargetFunctionArn),
  }));

describe('the history MCP server in the stack', () => {
  let enabled: Template;
  let historyFunction: string;
  beforeAll(() => {
    enabled = templateOf({ config: ENABLED });
    [historyFunction] = functionResource(enabled, 'HistoryMcp');
  });

  it('is not deployed unless the configuration enables it', () => {
    const template = templateOf();
    expect(() => functionResource(template, 'HistoryMcp')).toThrow();
    expect(urlsOf(template).map((url) => url.authType)).toEqual(['NONE']);
    expect(template.toJSON().Outputs?.[HISTORY_MCP_OUTPUT]).toBeUndefined();
  });

  it('serves it behind a Function URL that requires SigV4-signed requests', () => {
    const url = urlsOf(enabled).filter((u) => u.target.includes(historyFunction));
    expect(url).toEqual([{ authType: 'AWS_IAM', target: `<${historyFunction}.Arn>` }]);
  });

  it('lets its role read the conversations table and write nothing', () => {
    const statements = statementsOf(enabled, 'HistoryMcp');
    const dynamodb = statements.flatMap((s) => s.actions).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamodb).toContain('dynamodb:Query');
    expect(dynamodb.filter((action) => !TABLE_READS.has(action))).toEqual([]);
    // Its own log group and X-Ray are the rest: no queue, no state machine, no secret, no function.
    const others = statements.flatMap((s) => s.actions).filter((a) => !a.startsWith('dynamodb:'));
    expect(
      others.filter((action) => !/^(logs:(CreateLogStream|PutLogEvents)|xray:Put\w+)$/.test(action)),
    ).toEqual([]);
  });

  it('outputs its URL and hands the readers to its function only', () => {
    expect(renderIntrinsics(enabled.toJSON().Outputs?.[HISTORY_MCP_OUTPUT]?.Value)).toMatch(
      /HistoryMcp.*FunctionUrl/,
    );
    const [, fn] = functionResource(enabled, 'HistoryMcp');
    expect(JSON.parse(String(variablesOf(enabled, fn)[HISTORY_READERS_ENV]))).toEqual(READERS);
    const [, router] = functionResource(enabled, 'Router');
    expect(variablesOf(enabled, router)[HISTORY_READERS_ENV]).toBeUndefined();
  });
});

describe('the history server in the configuration', () => {
  it('refuses an enabled server nobody may read, an unknown workflow and a principal that is not an IAM ARN or account', () => {
    expect(configProblems({ sandbox: true, mcp: { historyServer: { enabled: true } } })).toEqual([
      'slackAgents.mcp.historyServer.readers: the history server is enabled but nobody may read: name at least one reader',
    ]);
    expect(
      configProblems({
        sandbox: true,
        mcp: {
          historyServer: { enabled: true, readers: [{ principal: '123456789012', workflows: ['incident'] }] },
        },
      }),
    ).toEqual([
      expect.stringMatching(
        /^slackAgents\.mcp\.historyServer\.readers\.0\.workflows\.0: "incident" is not a workflow here/,
      ),
    ]);
    expect(
      configProblems({
        sandbox: true,
        mcp: {
          historyServer: {
            enabled: true,
            readers: [{ principal: 'oncall', workflows: ['bug_investigation'] }],
          },
        },
      }),
    ).toEqual([
      expect.stringMatching(/^slackAgents\.mcp\.historyServer\.readers\.0\.principal: expected an IAM role/),
    ]);
  });
});
