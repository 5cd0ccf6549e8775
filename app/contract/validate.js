// Checks an engine answer against the record contract before the page draws it: the JSON
// Schema in record.js (generated from pe_engine/explain/record.py). It reads the few keywords
// the generator writes: $ref, type, enum, properties, required, additionalProperties, items,
// anyOf. An answer that fails is never drawn; the page shows what was wrong instead.

import { RECORD_DEFINITIONS, RECORD_SCHEMA } from "./record.js";

const MAX_ERRORS = 5;

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

/**
 * Problems of `value` against `schema`, as "path: what" strings (at most MAX_ERRORS).
 * @param {any} schema @param {unknown} value @param {string} path @param {string[]} out
 */
function check(schema, value, path, out) {
  if (out.length >= MAX_ERRORS) return;
  if (schema.$ref) {
    const name = schema.$ref.slice("#/$defs/".length);
    check(RECORD_SCHEMA.$defs[name], value, path, out);
    return;
  }
  if (schema.anyOf) {
    const fits = schema.anyOf.some((s) => {
      const sub = [];
      check(s, value, path, sub);
      return sub.length === 0;
    });
    if (!fits) out.push(`${path}: matches none of the allowed shapes`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    out.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.join(", ")}`);
    return;
  }
  if (schema.type && !hasType(value, schema.type)) {
    out.push(`${path}: expected ${schema.type}`);
    return;
  }
  if (schema.type === "array") {
    /** @type {unknown[]} */ (value).forEach((v, i) => check(schema.items, v, `${path}[${i}]`, out));
  } else if (schema.type === "object") {
    const obj = /** @type {Record<string, unknown>} */ (value);
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(obj, key)) out.push(`${path}: missing ${key}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const sub = schema.properties?.[key];
      if (sub) check(sub, v, `${path}.${key}`, out);
      else if (schema.additionalProperties === false) out.push(`${path}: unexpected ${key}`);
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
  const name = Object.hasOwn(obj, "error") ? "ErrorRecord" : RECORD_DEFINITIONS[/** @type {string} */ (obj.mode)];
  if (!name) return [`unknown mode ${JSON.stringify(obj.mode)}`];
  return problemsAgainst(name, answer);
}

/**
 * What is wrong with an answer of pe_engine.explain.checkpoint_policy: a PolicyAnswer, or an
 * error.
 * @param {unknown} answer
 * @returns {string[]}
 */
export function policyAnswerProblems(answer) {
  if (!hasType(answer, "object")) return ["the answer is not an object"];
  return problemsAgainst(
    Object.hasOwn(/** @type {object} */ (answer), "error") ? "ErrorRecord" : "PolicyAnswer",
    answer,
  );
}

/** @param {string} name a definition of the schema @param {unknown} answer */
function problemsAgainst(name, answer) {
  const out = [];
  check(RECORD_SCHEMA.$defs[name], answer, "record", out);
  return out;
}
