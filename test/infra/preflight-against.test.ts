import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { againstTemplate } from '../../infra/preflight/against.ts';
import {
  compareForInFlight,
  RECORD_VERSIONS_METADATA,
  type TemplateJson,
} from '../../infra/preflight/template-diff.ts';
import { templateOf } from './template.ts';

// Two synthesized templates: this commit's, and one whose bug workflow hands over after 3 turns
// (a different number in its definition). The per-worker cache in template.ts keeps both.
const json = (config: Record<string, unknown>) =>
  structuredClone(templateOf({ config }).toJSON()) as TemplateJson &
    Required<Pick<TemplateJson, 'Resources'>>;
const CURRENT = json({});
const CHANGED = json({ bugInvestigation: { continueAsNewAfterTurns: 3 } });

const machineIds = (template: TemplateJson) =>
  Object.entries(template.Resources ?? {})
    .filter(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine')
    .map(([id]) => id);
const bugMachine = () => {
  const id = machineIds(CURRENT).find((m) => m.startsWith('BugInvestigation'));
  if (id === undefined) throw new Error('no bug investigation state machine in the template');
  return id;
};
const definitionText = (template: TemplateJson, id: string) =>
  JSON.stringify(template.Resources?.[id]?.Properties);

describe('npm run preflight -- --against', () => {
  it('finds nothing that changes against the same release', () => {
    const report = compareForInFlight(CURRENT, CURRENT);
    expect(report.problems).toEqual([]);
    expect(
      report.lines.filter((line) => line.startsWith('state machine') || line.startsWith('function')),
    ).toEqual([]);
    expect(report.lines).toContain('records: no schema version changes');
  });

  it('names the state machine whose definition changes, and only it', () => {
    expect(definitionText(CHANGED, bugMachine())).not.toEqual(definitionText(CURRENT, bugMachine()));
    const report = compareForInFlight(CURRENT, CHANGED);
    expect(report.problems).toEqual([]);
    expect(report.lines.filter((line) => line.startsWith('state machine'))).toEqual([
      `state machine ${bugMachine()}: definition changes (a new version; executions running keep the one they started on)`,
    ]);
  });

  it('tells a function whose code changes behind published versions from one reached without a version', () => {
    // A version some state machine's task invokes.
    const [versionId, version] =
      Object.entries(CURRENT.Resources).find(
        ([id, r]) =>
          r.Type === 'AWS::Lambda::Version' &&
          machineIds(CURRENT).some((m) => definitionText(CURRENT, m).includes(`{"Ref":"${id}"}`)),
      ) ?? [];
    if (versionId === undefined || version === undefined)
      throw new Error('no Lambda version in the template');
    const functionId = (version.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref;
    if (functionId === undefined) throw new Error(`the version ${versionId} names no function`);
    // The previous release: other code in the function, so another version resource.
    const previous = structuredClone(CURRENT);
    const fn = previous.Resources[functionId];
    if (fn?.Properties === undefined) throw new Error(`no function ${functionId}`);
    fn.Properties.Code = { S3Bucket: 'assets', S3Key: 'previous-code.zip' };
    const renamed = JSON.parse(JSON.stringify(previous).replaceAll(`"${versionId}"`, '"PreviousVersion0"'));
    const pinned = compareForInFlight(renamed, CURRENT);
    expect(pinned.problems).toEqual([]);
    const line = pinned.lines.find((l) => l.startsWith('function '));
    expect(line).toMatch(
      /: code change; invoked by .+ through a published version \(executions in flight keep the old one\)$/,
    );

    // This release invoking the function unqualified: executions in flight would run new code.
    const unpinned = JSON.parse(
      JSON.stringify(CURRENT).replaceAll(`{"Ref":"${versionId}"}`, `{"Fn::GetAtt":["${functionId}","Arn"]}`),
    ) as TemplateJson;
    const report = compareForInFlight(renamed, unpinned);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(
      /invoke\(s\) it without a version: executions in flight would run the new code/,
    );
  });

  it('checks that the hand-over versions the previous release sends are accepted', () => {
    const ok = compareForInFlight(CURRENT, CURRENT);
    expect(ok.lines).toContain(
      `hand-over into ${bugMachine()}: the previous release hands over with handoverVersion 1; this one accepts 0, 1`,
    );
    const later = JSON.parse(
      JSON.stringify(CURRENT).replaceAll('\\"handoverVersion\\":1', '\\"handoverVersion\\":2'),
    );
    expect(JSON.stringify(later)).not.toEqual(JSON.stringify(CURRENT));
    const refused = compareForInFlight(later, CURRENT);
    expect(refused.problems).toContain(
      `hand-over into ${bugMachine()}: the previous release hands over with handoverVersion 2; this one accepts 0, 1: 2 would fail with HandoverVersionNotAccepted (accept it)`,
    );
  });

  it('reads the record versions from the templates: none before versions, and one this release cannot read', () => {
    const before = structuredClone(CURRENT);
    delete before.Metadata?.[RECORD_VERSIONS_METADATA];
    expect(compareForInFlight(before, CURRENT).lines).toContain(
      'records: the previous release wrote no schema version (read as version 0, the same shape as 1)',
    );
    const newer = structuredClone(CURRENT);
    newer.Metadata = { ...newer.Metadata, [RECORD_VERSIONS_METADATA]: { conversation: 2 } };
    expect(compareForInFlight(newer, CURRENT).problems).toContain(
      'record conversation: schema version 2 -> 1 (this release reads 0, 1): the records written before would not be read (add the upgrade)',
    );
  });
});

describe('the template --against names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'against-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is read from a file when one exists', async () => {
    const file = join(dir, 'previous.template.json');
    writeFileSync(file, JSON.stringify(CURRENT));
    expect(await againstTemplate(file, () => Promise.reject(new Error('no AWS')))).toEqual(CURRENT);
  });

  it('is read from the deployed stack of that name otherwise', async () => {
    const asked: string[] = [];
    const template = await againstTemplate('SlackAgents', async (name) => {
      asked.push(name);
      return JSON.stringify(CHANGED);
    });
    expect(asked).toEqual(['SlackAgents']);
    expect(template).toEqual(CHANGED);
  });

  it('refuses a file that is no template, saying why', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'not json');
    await expect(againstTemplate(file)).rejects.toMatchObject({
      name: 'AgainstTemplateError',
      message: expect.stringContaining('is not a JSON template'),
    });
    writeFileSync(file, '{"Parameters":{}}');
    await expect(againstTemplate(file)).rejects.toThrow(/has no Resources/);
  });
});
