import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { McpSettings } from '../lambdas/mcp/config.ts';

/**
 * Lets a function read the headers secrets of the configured MCP servers (docs/mcp.md), each
 * named by its name (any version suffix) or its complete ARN; nothing else of Secrets Manager.
 */
export function grantMcpHeaders(fn: IGrantable & Construct, mcp: McpSettings): void {
  const secrets = [...new Set(mcp.servers.flatMap((server) => server.headersSecret ?? []))];
  if (secrets.length === 0) return;
  const scope = new Construct(fn, 'McpHeaders');
  secrets.forEach((secret, index) => {
    const imported = secret.startsWith('arn:')
      ? Secret.fromSecretCompleteArn(scope, `Secret${index}`, secret)
      : Secret.fromSecretNameV2(scope, `Secret${index}`, secret);
    imported.grantRead(fn);
  });
}
