import { LOCAL_REGION } from './template.ts';

/**
 * The whole `npm run feedback:export` command for a running sandbox, as its banner prints it:
 * the sandbox's DynamoDB endpoint, region and table, with the dummy credentials it accepts.
 */
export function feedbackExportCommand(sandbox: { url: string; tableName: string }): string {
  return [
    `AWS_ENDPOINT_URL_DYNAMODB=${sandbox.url}`,
    `AWS_REGION=${LOCAL_REGION}`,
    'AWS_ACCESS_KEY_ID=sandbox',
    'AWS_SECRET_ACCESS_KEY=sandbox',
    `npm run feedback:export -- --table ${sandbox.tableName} --out feedback.jsonl`,
  ].join(' ');
}
