import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A running local/synth-server.ts: its address, and how to stop it. */
export interface SynthServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the warm synthesis server in a child process and waits until it listens. */
export async function startSynthServer(root: string): Promise<SynthServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'local', 'synth-server.ts')],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the synthesis server exited (${code}) before listening`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin?.end();
      }),
  };
}
