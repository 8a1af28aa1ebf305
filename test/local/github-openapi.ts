import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * Response checks against GitHub's own OpenAPI description of GitHub Enterprise Server 3.19
 * (`@octokit/openapi`, the newest GHES file it ships). Each response body is validated against
 * the schema its operation declares for that status, with ajv + ajv-formats.
 *
 * What the validator changes, and why (nothing else is relaxed; `required`, `type`, `enum`,
 * `format`, `oneOf` and `additionalProperties` where declared all hold):
 * - OpenAPI 3.0's `nullable: true` beside `allOf`/`oneOf`/`anyOf` without a `type` (116 places)
 *   is rewritten to `anyOf: [<the schema>, {type: 'null'}]`, which is what 3.0 means by it; ajv's
 *   own `nullable` support only covers schemas that have a `type`.
 * - A nullable schema with an `enum` also accepts null (50 such schemas, e.g. an open issue's
 *   `state_reason`): GitHub sends null there, Octokit's generated types say `| null`, but the
 *   description leaves null out of the enum and ajv, following OpenAPI 3.0.3, would refuse it.
 * - Unknown keywords (`example`, `discriminator`, `x-github`, `readOnly`, `deprecated`...) are
 *   ignored (`strict: false`): they are annotations. `discriminator` only picks which `oneOf`
 *   branch to report; `oneOf` itself is still enforced.
 * - Four formats that ajv-formats does not know (`ssh-key`, `ssh-key fingerprint`, `ip/cidr`,
 *   `timestamp`) accept any string; none occurs in the responses the emulator sends.
 * - The description document itself is not validated against the OpenAPI meta-schema
 *   (`validateSchema: false`): it is GitHub's, not ours to check.
 */
const SPEC_PATH = 'node_modules/@octokit/openapi/generated/ghes-3.19.json';

type Json = Record<string, unknown>;

let spec: Json | undefined;
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function load(): { spec: Json; ajv: Ajv } {
  if (spec && ajv) return { spec, ajv };
  const raw = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Json;
  rewriteNullable(raw);
  const instance = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
  addFormats(instance);
  for (const name of ['ssh-key', 'ssh-key fingerprint', 'ip/cidr', 'timestamp'])
    instance.addFormat(name, true);
  instance.addSchema({
    $id: 'ghes',
    paths: raw.paths,
    components: raw.components,
    'x-webhooks': raw['x-webhooks'],
  });
  spec = raw;
  ajv = instance;
  return { spec, ajv };
}

function rewriteNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteNullable(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  for (const value of Object.values(o)) rewriteNullable(value);
  if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...o.enum, null];
  if (o.nullable === true && o.type === undefined) {
    const inner: Json = {};
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'nullable' && k !== 'description' && k !== 'title') inner[k] = v;
    }
    for (const k of Object.keys(inner)) delete o[k];
    delete o.nullable;
    o.anyOf = [inner, { type: 'null' }];
  }
}

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** The validator of `method path` (the description's path template) for `status`. */
export function responseValidator(method: string, path: string, status: number): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const { spec: s, ajv: a } = load();
  const operation = ((s.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
  if (!operation) throw new Error(`the description has no operation ${method} ${path}`);
  const response = (operation.responses as Json)[String(status)] as Json | undefined;
  if (!response) throw new Error(`${method} ${path} declares no ${status} response`);
  let ref = `ghes#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${status}`;
  if (typeof response.$ref === 'string') ref = `ghes${response.$ref}`;
  const validate = a.compile({ $ref: `${ref}/content/application~1json/schema` });
  compiled.set(key, validate);
  return validate;
}

/** Throws, naming every violation, when a body breaks its operation's response schema. */
export function assertMatchesSchema(method: string, path: string, status: number, body: unknown): void {
  const validate = responseValidator(method, path, status);
  if (!validate(body)) {
    const errors = (validate.errors ?? [])
      .slice(0, 15)
      .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(`${method} ${path} ${status} breaks GitHub's schema:\n${errors.join('\n')}`);
  }
}

/** A webhook payload's schema (`x-webhooks`), e.g. `issues-opened`. */
export function assertWebhookMatchesSchema(name: string, payload: unknown): void {
  const key = `webhook ${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    const { spec: s, ajv: a } = load();
    if (!(s['x-webhooks'] as Json)[name]) throw new Error(`the description has no webhook ${name}`);
    validate = a.compile({
      $ref: `ghes#/x-webhooks/${pointer(name)}/post/requestBody/content/application~1json/schema`,
    });
    compiled.set(key, validate);
  }
  if (!validate(payload)) {
    const errors = (validate.errors ?? [])
      .slice(0, 15)
      .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(`webhook ${name} breaks GitHub's schema:\n${errors.join('\n')}`);
  }
}
