// "Copy as JAX": the record's own snippet. The engine writes it with the record (one source
// of truth): a Python program, imports once at the top, that run with real JAX prints the
// programs the page shows, one per pane, each after a `# pane: <id>` line.

/**
 * The snippet for the page's state: the shown record's, or a comment saying why there is none.
 * @param {import("./page/update.js").PageState} state
 */
export function jaxSnippet(state) {
  if (state.error) return `# The code does not trace yet (${state.error.message}): fix it, then copy again.\n`;
  const snippet = state.record && "jax_snippet" in state.record ? state.record.jax_snippet : "";
  return snippet || "# Nothing traced yet: define a function, e.g. def f(x, y): return jnp.sin(x) * y\n";
}
