// The page's mode table (app/modes.js), as data, for tests/test_mode_table.py: each mode's
// fields, and the kwargs its requests add (for a sample state), which that test checks against
// the request contract (app/contract/request-schema.json) and the engine's MODES.
import { MODES, MODE_TABLE } from "../../app/modes.js";

const STATE = {
  code: "def f(x):\n  return x\n",
  known: {},
  values: {},
  policy: "nothing_saveable",
  folding: true,
  instantiate: [true],
};
const out = MODES.map((name) => {
  const m = MODE_TABLE[name];
  return {
    name,
    mask: m.mask,
    jax: m.jax,
    option: m.option,
    masks: m.masks,
    kwargs: Object.keys(m.kwargs({ ...STATE, mode: name })),
    first: m.first ? Object.keys(m.first) : null,
    later: m.later,
  };
});
process.stdout.write(JSON.stringify(out));
