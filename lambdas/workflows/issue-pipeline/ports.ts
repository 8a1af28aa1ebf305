import type { BuildResults } from '../../builds/contract.ts';
import type { BaselineRecord } from './contract.ts';
import type { IssueState } from './state.ts';

/** Where the pipeline's progress is shown: its Slack message and its issue comment, once made. */
export interface ProgressAnchors {
  slack?: { channel: string; ts: string } | undefined;
  commentId?: number | undefined;
}

/** The pipeline's records in DynamoDB (adapters/dynamo-issue-state.ts). */
export interface IssueStateStore {
  load(conversationId: string): Promise<IssueState>;
  /** Validates the whole document, then writes it. */
  save(conversationId: string, state: IssueState): Promise<void>;
  progress(conversationId: string): Promise<ProgressAnchors>;
  setProgress(conversationId: string, anchors: ProgressAnchors): Promise<void>;
  /** Keeps the change's build results while the base commit builds. */
  keepBranchResults(conversationId: string, results: BuildResults): Promise<void>;
  branchResults(conversationId: string): Promise<BuildResults | undefined>;
  baseline(repository: string, sha: string): Promise<BaselineRecord | undefined>;
  saveBaseline(repository: string, record: BaselineRecord): Promise<void>;
}
