// The explainer's opening lines about the stage, written from the record the stage draws: the
// reader's function, its mask and the mode (never the default example's, which the page's HTML
// holds only until the first record is drawn).

import { jaxWords, modeOf } from "../modes.js";
import { h, rich } from "./util.js";

/** @import { Arg, Event } from "../contract/record.js" */
/** What the sentences read of a record (any mode's). @typedef {{fn: string, args: Arg[], mode: string, selected?: string,
 *  events?: Event[]}} IntroRecord */

const SHOWN = 3; // primitives named in a sentence; the rest are counted

/** "`a`", "`a` and `b`", "`a`, `b` and `c`" @param {string[]} list */
function names(list) {
  const quoted = list.map((n) => `\`${n}\``);
  return quoted.length < 2 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

/** The equations of one side, by primitive: "the known equation (`sin`)", "the 4 known equations
 *  (`dot_general`, `add`, `tanh` and 1 more)". @param {Event[]} events @param {string} what */
function equations(events, what) {
  const prims = [...new Set(events.map((e) => e.primitive))];
  const shown = prims.slice(0, SHOWN);
  const more = prims.length - shown.length;
  const list = more ? `${shown.map((p) => `\`${p}\``).join(", ")} and ${more} more` : names(shown);
  return events.length === 1 ? `the ${what} equation (${list})` : `the ${events.length} ${what} equations (${list})`;
}

/** Which inputs are known, in the words of the record's mode. @param {IntroRecord} rec */
function inputsSentence(rec) {
  const sig = `\`${rec.fn}(${rec.args.map((a) => a.name).join(", ")})\``;
  const known = names(rec.args.filter((a) => a.known).map((a) => a.name));
  const unknown = names(rec.args.filter((a) => !a.known).map((a) => a.name));
  const fixed = known ? ` and holds ${known} fixed` : "";
  const mode = modeOf(rec.mode);
  const under = mode && jaxWords(mode, (name) => `\`${name}\``);
  if (mode?.staged)
    return `The function is ${sig}, under ${under}: every input is unknown whatever its toggle, so the trace computes nothing.`;
  if (mode?.mask === "argnums") {
    // a mode with a policy option: its policy decides what is saved
    if (mode.option === "policy")
      return (
        `The function is ${sig}, under ${under}: it differentiates ${unknown}${fixed}, ` +
        `and the policy \`${rec.selected}\` decides which values of the forward pass are saved.`
      );
    return `The function is ${sig}, under ${under}: it differentiates ${unknown}${fixed}, so the primals are known and the tangents of ${unknown} unknown.`;
  }
  if (!unknown) return `The function is ${sig}, with every input known.`;
  return `The function is ${sig}, with ${known ? `${known} known and ` : "every input "}${unknown} unknown.`;
}

/** What Play shows, from the record's steps. @param {IntroRecord} rec */
function playSentence(rec) {
  const events = rec.events ?? [];
  const on = (/** @type {Event["side"]} */ side) => events.filter((e) => e.side === side);
  const [known, unknown] = [on("known"), on("unknown")];
  if (modeOf(rec.mode)?.staged) return ` and watch ${equations(events, "staged")} land in the program one by one.`;
  if (known.length + unknown.length < events.length) {
    return " and watch each equation land in the known program, the unknown one, or both.";
  }
  if (!unknown.length)
    return ` and watch ${equations(known, "known")} run at once: none reads an unknown input, so the unknown program has nothing to do.`;
  if (!known.length)
    return ` and watch ${equations(unknown, "staged")} wait: each reads an unknown input, so the known program computes nothing.`;
  const waiting =
    modeOf(rec.mode)?.mask === "known"
      ? `for ${names(rec.args.filter((a) => !a.known).map((a) => a.name))}`
      : "for the tangents";
  return ` and watch ${equations(known, "known")} run at once while ${equations(unknown, "staged")} ${unknown.length === 1 ? "waits" : "wait"} ${waiting}.`;
}

/**
 * Keep `el` describing the stage: its sentences are written again whenever the page draws a
 * record (window.explainer.onRecord), starting with the record on screen now, if any.
 * @param {Element | null} el
 * @param {{record?: () => object | null, onRecord?: (cb: (record: object) => void) => unknown}} [explainer]
 */
export function followStage(el, explainer) {
  if (!el) return;
  const write = (/** @type {object | null | undefined} */ record) => {
    // the page's records (EngineRecord), the fields read here checked first
    const rec = /** @type {IntroRecord | null | undefined} */ (record);
    if (!rec?.fn || !Array.isArray(rec.args)) return;
    el.replaceChildren(
      rich(inputsSentence(rec)),
      " Press ",
      h("strong", null, "Play"),
      modeOf(rec.mode)?.staged ? " above the program" : " above the programs",
      rich(playSentence(rec)),
    );
  };
  write(explainer?.record?.());
  explainer?.onRecord?.(write);
}
