// Checks what crosses to and from the engine against the contract: every answer before the
// page draws it, and every request the page builds (the tests check those; the engine checks
// them again). The JSON Schemas are generated from pe_engine/explain/record.py and
// request_contract.py. It reads the few keywords the generator writes: $ref, type, enum,
// properties, required, additionalProperties, items, anyOf. An answer that fails is never
// drawn; the page shows what was wrong instead.

import RECORD_SCHEMA from "./record-schema.json" with { type: "json" };
import REQUEST_SCHEMA from "./request-schema.json" with { type: "json" };
import { RECORD_DEFINITIONS, REQUEST_DEFINITIONS } from "./values.js";

const MAX_ERRORS = 5;

/**
 * A node of the generated schemas: only the keywords the generator writes.
 * @typedef {object} Schema
 * @property {string} [$ref]
 * @property {Schema[]} [anyOf]
 * @property {unknown[]} [enum]
 * @property {string} [type]
 * @property {Schema} [items]
 * @property {Record<string, Schema>} [properties]
 * @property {string[]} [required]
 * @property {boolean} [additionalProperties]
 */
/** @typedef {Record<string, string | undefined>} Definitions a mode's definition, if any */

/** @param {unknown} value @param {string} type */
function hasType(value, type) {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

/** Where a value is, from the root: its name, then each key and index on the way down.
 *  @typedef {Array<string | number>} Path */

/** A path as the problems say it: record.events[3].side. @param {Path} at */
function where(at) {
  return at.map((k, i) => (i === 0 ? k : typeof k === "number" ? `[${k}]` : `.${k}`)).join("");
}

/**
 * Problems of `value` against `schema`, as "path: what" strings (at most MAX_ERRORS). `at` is
 * the value's path, a stack every level pushes its key onto and pops: said only in a problem
 * (a record is thousands of values, and one string per value was most of the check's time).
 * @param {Record<string, Schema>} defs the schema's $defs @param {Schema} schema
 * @param {unknown} value @param {Path} at @param {string[]} out
 */
function check(defs, schema, value, at, out) {
  if (out.length >= MAX_ERRORS) return;
  if (schema.$ref) {
    check(defs, defs[schema.$ref.slice("#/$defs/".length)], value, at, out);
    return;
  }
  if (schema.anyOf) {
    const keeps = schema.anyOf.some((s) => {
      /** @type {string[]} */
      const sub = [];
      check(defs, s, value, at, sub);
      return sub.length === 0;
    });
    if (keeps) return;
    // one shape of the right type (a list, or null): what is wrong inside it
    const fits = schema.anyOf.filter((s) => !s.type || hasType(value, s.type));
    if (fits.length === 1) check(defs, fits[0], value, at, out);
    else out.push(`${where(at)}: matches none of the allowed shapes`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    out.push(`${where(at)}: ${JSON.stringify(value)} is not one of ${schema.enum.join(", ")}`);
    return;
  }
  if (schema.type && !hasType(value, schema.type)) {
    out.push(`${where(at)}: expected ${schema.type}`);
    return;
  }
  if (schema.type === "array") {
    const items = /** @type {unknown[]} */ (value);
    const item = /** @type {Schema} */ (schema.items);
    for (let i = 0; i < items.length; i++) {
      at.push(i);
      check(defs, item, items[i], at, out);
      at.pop();
    }
  } else if (schema.type === "object") {
    const obj = /** @type {Record<string, unknown>} */ (value);
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(obj, key)) out.push(`${where(at)}: missing ${key}`);
    }
    for (const key of Object.keys(obj)) {
      const sub = schema.properties?.[key];
      if (sub) {
        at.push(key);
        check(defs, sub, obj[key], at, out);
        at.pop();
      } else if (schema.additionalProperties === false) out.push(`${where(at)}: unexpected ${key}`);
    }
  }
}

/**
 * What is wrong with an engine answer ([] when it keeps the contract): a record of its mode,
 * or an error.
 * @param {unknown} answer
 * @returns {string[]}
 */
export function answerProblems(answer) {
  if (!hasType(answer, "object")) return ["the answer is not an object"];
  const obj = /** @type {Record<string, unknown>} */ (answer);
  const mode = /** @type {string} */ (obj.mode);
  const name = Object.hasOwn(obj, "error") ? "ErrorRecord" : /** @type {Definitions} */ (RECORD_DEFINITIONS)[mode];
  if (!name) return [`unknown mode ${JSON.stringify(obj.mode)}`];
  return problemsAgainst(RECORD_SCHEMA, name, answer, "record");
}

/**
 * What is wrong with an answer of pe_engine.explain.checkpoint_policy: a PolicyAnswer, or an
 * error.
 * @param {unknown} answer
 * @returns {string[]}
 */
export function policyAnswerProblems(answer) {
  if (!hasType(answer, "object")) return ["the answer is not an object"];
  const name = Object.hasOwn(/** @type {object} */ (answer), "error") ? "ErrorRecord" : "PolicyAnswer";
  return problemsAgainst(RECORD_SCHEMA, name, answer, "record");
}

/**
 * What is wrong with an answer of pe_engine.explain.signature: a SignatureAnswer, or an error.
 * @param {unknown} answer
 * @returns {string[]}
 */
export function signatureProblems(answer) {
  if (!hasType(answer, "object")) return ["the answer is not an object"];
  const name = Object.hasOwn(/** @type {object} */ (answer), "error") ? "ErrorRecord" : "SignatureAnswer";
  return problemsAgainst(RECORD_SCHEMA, name, answer, "record");
}

/**
 * What is wrong with a request the page built ({mode, kwargs}: the kwargs of its mode's
 * request), or with the kwargs of pe_engine.explain.checkpoint_policy (mode "policy") or of
 * pe_engine.explain.signature (mode "signature").
 * @param {{mode: string, kwargs: unknown}} request
 * @returns {string[]}
 */
export function requestProblems({ mode, kwargs }) {
  const name =
    { policy: "PolicyRequest", signature: "SignatureRequest" }[mode] ??
    /** @type {Definitions} */ (REQUEST_DEFINITIONS)[mode];
  if (!name) return [`unknown mode ${JSON.stringify(mode)}`];
  return problemsAgainst(REQUEST_SCHEMA, name, kwargs, "request");
}

/** @param {{$defs: object}} schema @param {string} name @param {unknown} value @param {string} path */
function problemsAgainst(schema, name, value, path) {
  /** @type {string[]} */
  const out = [];
  // the imported JSON's literal type is far narrower than Schema's optional keywords
  const defs = /** @type {Record<string, Schema>} */ (schema.$defs);
  check(defs, defs[name], value, [path], out);
  return out;
}
