import { SlackApiError } from './errors.ts';
import type { SlackFile } from './types.ts';

/** The workspace's files: uploads in progress (`files.uploadV2`'s steps) and the files the bot shared. */

export class FileUploads {
  /** Uploads between `files.getUploadURLExternal` and `files.completeUploadExternal`. */
  private readonly pending = new Map<string, { filename: string; content: string | undefined }>();
  /** File ids handed out so far (the next id is the one after). */
  count = 0;
  /** Every file the bot shared, in upload order. */
  readonly shared: SlackFile[] = [];

  /** Step 1 of `files.uploadV2`: reserves a file id for the bytes posted next. */
  reserve(input: { filename: string }): string {
    if (!input.filename) throw new SlackApiError('invalid_arguments', 'missing required field: filename');
    this.count += 1;
    const id = `F${String(this.count).padStart(8, '0')}`;
    this.pending.set(id, { filename: input.filename, content: undefined });
    return id;
  }

  /** Step 2: the bytes, posted to the upload URL. */
  receive(fileId: string, content: string): void {
    const upload = this.pending.get(fileId);
    if (!upload) throw new SlackApiError('file_not_found', fileId);
    upload.content = content;
  }

  /** Step 3's files, as shared in `channel` (or its thread); each must have its bytes. */
  filesFor(
    files: readonly { id: string; title?: string }[],
    channel: string,
    threadTs: string | undefined,
  ): SlackFile[] {
    return files.map(({ id, title }): SlackFile => {
      const upload = this.pending.get(id);
      if (upload?.content === undefined) throw new SlackApiError('file_not_found', id);
      return {
        id,
        title: title || upload.filename,
        filename: upload.filename,
        content: upload.content,
        channel,
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      };
    });
  }

  /** The files were posted: no longer pending, shared from now on. */
  markShared(files: readonly SlackFile[]): void {
    for (const file of files) this.pending.delete(file.id);
    this.shared.push(...files);
  }
}
