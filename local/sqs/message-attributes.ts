import { createHash } from 'node:crypto';
import { invalidParameter, SqsError } from './errors.ts';

/** A message attribute as it travels in the SQS JSON protocol (binary values base64-encoded). */
export interface WireMessageAttributeValue {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
  StringListValues?: string[];
  BinaryListValues?: string[];
}

export type WireMessageAttributes = Record<string, WireMessageAttributeValue>;

const MAX_ATTRIBUTES = 10;
const NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[A-Za-z0-9_.-]{1,255})?$/;

/** Validates `MessageAttributes` of a send the way SQS does; returns a clean copy. */
export function validateMessageAttributes(value: unknown): WireMessageAttributes {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParameter('MessageAttributes', value, 'must be a map of name to attribute value.');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_ATTRIBUTES) {
    throw new SqsError(
      'InvalidParameterValue',
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`,
    );
  }
  const result: WireMessageAttributes = {};
  for (const [name, raw] of entries) {
    if (!NAME.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
      throw invalidParameter('MessageAttributes', name, 'the message attribute name is not valid.');
    }
    if (/^(aws\.|amazon\.)/i.test(name)) {
      throw invalidParameter('MessageAttributes', name, 'names starting with AWS. or Amazon. are reserved.');
    }
    const attribute = (raw ?? {}) as Record<string, unknown>;
    const dataType = attribute.DataType;
    if (typeof dataType !== 'string' || !DATA_TYPE.test(dataType)) {
      throw invalidParameter(
        'MessageAttributes',
        name,
        `the message attribute '${name}' must have a DataType of String, Number or Binary.`,
      );
    }
    if (dataType.startsWith('Binary')) {
      if (typeof attribute.BinaryValue !== 'string' || attribute.BinaryValue === '') {
        throw invalidParameter(
          'MessageAttributes',
          name,
          `the message attribute '${name}' must have a BinaryValue.`,
        );
      }
      result[name] = { DataType: dataType, BinaryValue: attribute.BinaryValue };
    } else {
      if (typeof attribute.StringValue !== 'string' || attribute.StringValue === '') {
        throw invalidParameter(
          'MessageAttributes',
          name,
          `the message attribute '${name}' must have a StringValue.`,
        );
      }
      if (dataType.startsWith('Number') && !Number.isFinite(Number(attribute.StringValue))) {
        throw invalidParameter('MessageAttributes', name, `the message attribute '${name}' is not a number.`);
      }
      result[name] = { DataType: dataType, StringValue: attribute.StringValue };
    }
  }
  return result;
}

/** Bytes the attributes count towards the message size limit (names, types and values). */
export function messageAttributesSize(attributes: WireMessageAttributes): number {
  let size = 0;
  for (const [name, value] of Object.entries(attributes)) {
    size += Buffer.byteLength(name) + Buffer.byteLength(value.DataType);
    size += value.BinaryValue !== undefined ? Buffer.from(value.BinaryValue, 'base64').length : 0;
    size += value.StringValue !== undefined ? Buffer.byteLength(value.StringValue) : 0;
  }
  return size;
}

/**
 * SQS's MD5 of message attributes: names sorted, each encoded as length-prefixed name,
 * length-prefixed data type, a transport byte (1 string, 2 binary) and the length-prefixed
 * value. Undefined when there are none, as SQS omits the field then.
 */
export function md5OfMessageAttributes(attributes: WireMessageAttributes): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const hash = createHash('md5');
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  };
  for (const name of names) {
    const value = attributes[name];
    if (value === undefined) continue;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(value.DataType, 'utf8'));
    if (value.BinaryValue !== undefined) {
      hash.update(Buffer.from([2]));
      lengthPrefixed(Buffer.from(value.BinaryValue, 'base64'));
    } else {
      hash.update(Buffer.from([1]));
      lengthPrefixed(Buffer.from(value.StringValue ?? '', 'utf8'));
    }
  }
  return hash.digest('hex');
}

/**
 * The attributes a receive asked for: `All` or `.*` selects every one, `prefix.*` a family,
 * anything else an exact name.
 */
export function selectMessageAttributes(
  attributes: WireMessageAttributes,
  requested: readonly string[] | undefined,
): WireMessageAttributes {
  if (!requested || requested.length === 0) return {};
  const selected: WireMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    const wanted = requested.some((pattern) => {
      if (pattern === 'All' || pattern === '.*') return true;
      if (pattern.endsWith('.*')) return name.startsWith(pattern.slice(0, -1));
      return pattern === name;
    });
    if (wanted) selected[name] = value;
  }
  return selected;
}
