// The mode switcher: a tablist (split | jit | grad | checkpoint) with arrow-key navigation,
// plus each mode's own option: jit's eager-constant-folding switch, checkpoint's policy picker.
import { POLICY_NAMES } from "../../contract/values.js";
import { setAttr, setHidden } from "../../dom-writes.js";
import { MODES, MODE_TABLE } from "../../modes.js";

/**
 * createModes(root, {onMode(name), onFolding(bool), onPolicy(name)})
 *   -> {render({mode, folding, policy})}
 * @param {Element} root
 * @param {{onMode: (mode: string) => void, onFolding: (on: boolean) => void, onPolicy: (policy: string) => void}} handlers
 */
export function createModes(root, { onMode, onFolding, onPolicy }) {
  const tablist = document.createElement("div");
  tablist.className = "mode-tabs";
  tablist.setAttribute("role", "tablist");
  tablist.setAttribute("aria-label", "What to do with the function");
  const tabs = MODES.map((m) => {
    const b = document.createElement("button");
    b.type = "button";
    b.setAttribute("role", "tab");
    b.setAttribute("data-testid", `mode-${m}`);
    b.setAttribute("aria-controls", "stage-panel");
    b.id = `mode-tab-${m}`;
    b.dataset.mode = m;
    b.textContent = MODE_TABLE[m].label;
    b.title = MODE_TABLE[m].title;
    b.addEventListener("click", () => onMode(m));
    tablist.append(b);
    return b;
  });
  tablist.addEventListener("keydown", (e) => {
    const i = tabs.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (i < 0) return;
    let j = null;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") j = (i + 1) % tabs.length;
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = tabs.length - 1;
    if (j === null) return;
    e.preventDefault();
    tabs[j].focus();
    onMode(MODES[j]);
  });

  // jit: eager constant folding
  const folding = document.createElement("label");
  folding.className = "mode-option folding-option";
  const foldingBox = document.createElement("input");
  foldingBox.type = "checkbox";
  foldingBox.setAttribute("role", "switch");
  foldingBox.setAttribute("data-testid", "folding");
  foldingBox.addEventListener("change", () => onFolding(foldingBox.checked));
  const foldingText = document.createElement("span");
  const flag = document.createElement("code");
  flag.textContent = "jax_eager_constant_folding";
  foldingText.append("eager constant folding ", flag);
  folding.append(foldingBox, foldingText);

  // checkpoint: policy
  const policy = document.createElement("label");
  policy.className = "mode-option policy-option";
  const policyText = document.createElement("span");
  policyText.textContent = "policy";
  const policySelect = document.createElement("select");
  policySelect.setAttribute("data-testid", "policy");
  for (const p of POLICY_NAMES) {
    const o = document.createElement("option");
    o.value = p;
    o.textContent = `checkpoint_policies.${p}`;
    policySelect.append(o);
  }
  policySelect.addEventListener("change", () => onPolicy(policySelect.value));
  policy.append(policyText, policySelect);

  root.replaceChildren(tablist, folding, policy); // over the build's first frame (tools/prerender.mjs)

  /** @param {{mode: string, folding: boolean, policy: string}} doc */
  function render({ mode, folding: fold, policy: pol }) {
    for (const t of tabs) {
      const on = t.dataset.mode === mode;
      setAttr(t, "aria-selected", String(on));
      setAttr(t, "tabindex", on ? "0" : "-1");
    }
    const { option } = MODE_TABLE[mode];
    setHidden(folding, option !== "folding");
    foldingBox.checked = Boolean(fold);
    setHidden(policy, option !== "policy");
    if (![...policySelect.options].some((o) => o.value === pol)) {
      const o = document.createElement("option");
      o.value = pol;
      o.textContent = `checkpoint_policies.${pol}`;
      policySelect.append(o);
    }
    policySelect.value = pol;
  }
  return { render };
}
