"""A spy on the page's engine client, for the browser tests of its queue (quiet calls).

`page.evaluate(SPY)` records, from then on, every call the page makes to the engine in
`window.__calls`: its entry point, mode, policy, mask (one '1' per known input), whether quiet,
and how it ended ("ok", an error type, or null while it runs); and every state the engine
shows in `window.__states`.
"""

SPY = """() => {
  const engine = window.peEngine;
  const call = engine.call;
  window.__calls = [];
  window.__states = [];
  engine.onState((s) => window.__states.push(s));
  engine.call = (fn, kw, opts) => {
    const entry = {fn, mode: kw.mode ?? null, policy: kw.policy ?? null,
                   quiet: Boolean(opts?.quiet), end: null,
                   mask: (kw.args ?? []).map((a) => (a.known ? '1' : '0')).join('')};
    window.__calls.push(entry);
    const p = call(fn, kw, opts);
    p.then(() => { entry.end = 'ok'; }, (e) => { entry.end = e.type; });
    return p;
  };
}"""
