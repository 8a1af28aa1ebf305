import { describe, expect, it } from 'vitest';
import { assertMatchesSchema, assertWebhookMatchesSchema } from './github-openapi.ts';

describe('the OpenAPI check of the GitHub emulator', () => {
  it('fails a body that lacks a field the operation requires', () => {
    expect(() =>
      assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/ref/{ref}', 200, {
        ref: 'refs/heads/main',
        url: 'x',
      }),
    ).toThrow(/required property 'node_id'/);
  });

  it('fails a body whose field has the wrong type or format', () => {
    const ref = {
      ref: 'refs/heads/main',
      node_id: 'x',
      url: 'not a uri',
      object: { type: 'commit', sha: 'a'.repeat(40), url: 'http://127.0.0.1/x' },
    };
    expect(() => assertMatchesSchema('GET', '/repos/{owner}/{repo}/git/ref/{ref}', 200, ref)).toThrow(
      /format/,
    );
  });

  it('accepts null where OpenAPI 3.0 marks a referenced schema nullable, and nothing else in its place', () => {
    const label = {
      id: 1,
      node_id: 'x',
      url: 'http://127.0.0.1/l',
      name: 'bug',
      description: null,
      color: 'fff',
      default: true,
    };
    expect(() =>
      assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', 200, [label]),
    ).not.toThrow();
    expect(() =>
      assertMatchesSchema('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', 200, [
        { ...label, description: 3 },
      ]),
    ).toThrow(/description/);
  });

  it('fails a webhook payload that lacks its subject', () => {
    expect(() =>
      assertWebhookMatchesSchema('issues-opened', { action: 'opened', repository: {}, sender: {} }),
    ).toThrow(/required property 'issue'/);
  });
});
