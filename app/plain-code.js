// The code as plain numbered lines, coloured as the editor colours Python: what the build draws
// for the first frame, and what the editor's place shows until the reader reaches for the code
// and CodeMirror mounts there (app/editor-slot.js). A small tokenizer stands in for
// CodeMirror's Python grammar, with the same colours for the same kinds of words
// (app/editor.js's highlight style; the Lezer grammar's tags), and the lines wear CodeMirror's
// line classes for the marks the page sets, so nothing moves or changes colour when it mounts.

import { setAttr } from "./dom-writes.js";

// Lezer's Python grammar as app/editor.js colours it: what it tags a keyword, the constants,
// and the names it tags by their place
const KEYWORDS = new Set(
  (
    "and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);
const CONSTANTS = new Set(["True", "False", "None"]);

// one token per match, tried at each position: a comment, a string's opening (its prefix and
// quote), a number, a name, a star, anything else one character at a time
const TOKEN = new RegExp(
  [
    /(#.*)/,
    /([rRbBuUfF]{0,2}(?:'''|"""|'|"))/,
    /(0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/,
    /([A-Za-z_]\w*)/,
    /(\*\*?|\s+|.)/,
  ]
    .map((r) => r.source)
    .join("|"),
  "y",
);
// a string's escapes are not coloured (Lezer's Escape)
const ESCAPE = /\\(?:[0-7]{1,3}|x[\da-fA-F]{2}|u[\da-fA-F]{4}|U[\da-fA-F]{8}|N\{[^}]*\}|[\s\S])/y;
const PREFIX = /^[rRbBuUfF]*/;

/**
 * The body of a string opened by `opening` (its prefix and quote), from `at` in `line`: its
 * tokens pushed on `tokens` (escapes and an f-string's fields as code, the rest as string), and
 * where it ends (after its closing quote), or -1 when it runs past the line.
 * @param {string} line @param {number} at @param {string} opening
 * @param {Array<[string, string | null]>} tokens
 */
function stringBody(line, at, opening, tokens) {
  const prefix = PREFIX.exec(opening)?.[0] ?? "";
  const quote = opening.slice(prefix.length);
  const raw = /r/i.test(prefix);
  const format = /f/i.test(prefix);
  let text = "";
  const flush = () => {
    if (text) tokens.push([text, "tok-string"]);
    text = "";
  };
  let i = at;
  while (i < line.length) {
    if (line.startsWith(quote, i)) {
      text += quote;
      flush();
      return i + quote.length;
    }
    if (line[i] === "\\") {
      ESCAPE.lastIndex = i;
      const esc = ESCAPE.exec(line)?.[0] ?? "\\";
      // a raw string keeps its backslashes, and a quote after one does not close it
      const taken = raw ? esc.slice(0, 2) : esc;
      if (raw) text += taken;
      else {
        flush();
        tokens.push([taken, null]);
      }
      i += taken.length;
    } else if (format && (line.startsWith("{{", i) || line.startsWith("}}", i))) {
      text += line.slice(i, i + 2);
      i += 2;
    } else if (format && line[i] === "{") {
      flush();
      i = formatField(line, i, quote, tokens);
    } else text += line[i++];
  }
  flush();
  return -1;
}

/**
 * An f-string's replacement field from its `{` at `at`: the expression coloured as code, its
 * conversion and format spec as Lezer's modifiers (the keyword colour); where it ends.
 * @param {string} line @param {number} at @param {string} quote
 * @param {Array<[string, string | null]>} tokens
 */
function formatField(line, at, quote, tokens) {
  tokens.push(["{", null]);
  let depth = 0;
  let i = at + 1;
  let inner = null; // a quote open inside the expression
  for (; i < line.length && !line.startsWith(quote, i); i++) {
    const c = line[i];
    if (inner) {
      if (c === inner) inner = null;
    } else if (c === "'" || c === '"') inner = c;
    else if ("([{".includes(c)) depth++;
    else if (depth && ")]}".includes(c)) depth--;
    else if (!depth && (c === "}" || c === ":" || (c === "!" && line[i + 1] !== "="))) break;
  }
  tokens.push(...pythonTokens(line.slice(at + 1, i)).tokens);
  const close = line.indexOf("}", i);
  if (close < 0 || line.slice(i, close).includes(quote)) return i;
  // the conversion (`!r`) and the spec after its colon (the colon itself is plain)
  const colon = line.indexOf(":", i);
  const specAt = colon >= 0 && colon < close ? colon : close;
  if (specAt > i) tokens.push([line.slice(i, specAt), "tok-keyword"]);
  if (specAt < close) tokens.push([":", null]);
  if (specAt + 1 < close) tokens.push([line.slice(specAt + 1, close), "tok-keyword"]);
  tokens.push(["}", null]);
  return close + 1;
}

/**
 * One line's tokens as [text, colour class or null], and the opening (prefix and quote) of a
 * triple-quoted string still open at its end (null when none): the next line starts in it.
 * @param {string} line @param {string | null} [open]
 * @returns {{tokens: Array<[string, string | null]>, open: string | null}}
 */
export function pythonTokens(line, open = null) {
  /** @type {Array<[string, string | null]>} */
  const tokens = [];
  let at = 0;
  if (open) {
    at = stringBody(line, 0, open, tokens);
    if (at < 0) return { tokens, open };
  }
  const statement = /^\s*(\w+|@)/.exec(line)?.[1];
  // an import's module paths and a decorator's name are plain names (until its arguments)
  let path = statement === "import" || statement === "from" || statement === "@";
  let prevWord = null; // the last name, for `def name`
  let prevChar = ""; // the last character that is not a space, for `.name` and `*args`
  while (at < line.length) {
    TOKEN.lastIndex = at;
    const [text, comment, opening, number, name] = /** @type {RegExpExecArray} */ (TOKEN.exec(line));
    let cls = null;
    let end = at + text.length;
    if (opening) {
      tokens.push([opening, "tok-string"]);
      end = stringBody(line, end, opening, tokens);
      if (end < 0) return { tokens, open: opening.endsWith("'''") || opening.endsWith('"""') ? opening : null };
      prevChar = line[end - 1];
      prevWord = null;
      at = end;
      continue;
    }
    if (comment) cls = "tok-comment";
    else if (number) cls = "tok-number";
    else if (name) {
      const called = /^\s*\(/.test(line.slice(end));
      // `print` is a keyword only as Python 2's statement
      const printStatement = name === "print" && !called && !prevChar;
      if (KEYWORDS.has(name) || printStatement) cls = "tok-keyword";
      else if (CONSTANTS.has(name)) cls = "tok-number";
      else if (path) cls = null;
      else if (prevChar === ".") cls = "tok-property";
      else if (prevWord === "def" || called) cls = "tok-function";
    } else if (text === "@" && statement === "@" && !prevChar) cls = "tok-number";
    else if (text[0] === "*" && (!prevChar || "(,[".includes(prevChar))) cls = "tok-keyword";
    if (statement === "@" && text === "(") path = false;
    tokens.push([text, cls]);
    if (text.trim()) {
      prevChar = line[end - 1];
      prevWord = name ?? null;
    }
    at = end;
  }
  return { tokens, open: null };
}

/** Draw `code` into `parent`: one numbered row per line, its words coloured.
 * @param {Element} parent
 * @param {string} code */
export function drawPlainCode(parent, code) {
  const doc = parent.ownerDocument;
  const pre = doc.createElement("pre");
  pre.className = "editor-prerender";
  // it stands in for the editor: reachable by Tab, and focus on it brings the editor
  pre.setAttribute("tabindex", "0");
  pre.setAttribute("role", "textbox");
  pre.setAttribute("aria-multiline", "true");
  pre.setAttribute("aria-label", "Python source of the traced function (focus it to edit)");
  let open = null;
  // a last "\n" opens a line, as in CodeMirror's gutter
  for (const line of code.split("\n")) {
    const row = doc.createElement("span");
    const { tokens, open: still } = pythonTokens(line, open);
    open = still;
    for (const [text, cls] of tokens) {
      if (!cls) row.append(text);
      else {
        const word = doc.createElement("span");
        word.className = cls;
        word.textContent = text;
        row.append(word);
      }
    }
    row.append("\n");
    pre.append(row);
  }
  parent.replaceChildren(pre);
}

/** The plain code's lines as text (what drawPlainCode drew), or null when there is none.
 * @param {Element} parent */
export function plainCodeText(parent) {
  const rows = parent.querySelectorAll(".editor-prerender > span");
  return rows.length ? [...rows].map((row) => row.textContent.slice(0, -1)).join("\n") : null;
}

/**
 * Mark lines of the plain code as CodeMirror marks them (app/editor.js): the error's line, the
 * line the stage links to, and the step's line in its colour; a null leaves a mark off.
 * @param {Element} parent
 * @param {{error: number | null, linked: number | null, step: {line: number | null, hue: number | null}}} marks
 */
export function markPlainLines(parent, { error, linked, step }) {
  /** @type {NodeListOf<HTMLElement>} */
  const rows = parent.querySelectorAll(".editor-prerender > span");
  rows.forEach((row, i) => {
    const n = i + 1;
    row.classList.toggle("cm-error-line", n === error);
    row.classList.toggle("cm-linked-line", n === linked);
    // the step line as CodeMirror's decoration: its colour class and its test id
    const hue = n === step.line ? `cm-hue-${step.hue ?? 0}` : null;
    for (const cls of [...row.classList]) if (/^cm-hue-\d+$/.test(cls) && cls !== hue) row.classList.remove(cls);
    row.classList.toggle("cm-step-line", hue !== null);
    if (hue !== null) row.classList.toggle(hue, true); // unlike add(), no write when it is there
    setAttr(row, "data-testid", hue !== null ? "source-line-active" : null);
  });
}
