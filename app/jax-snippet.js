// "Copy as JAX": a short Python program that reproduces what the page shows, with real JAX.
import { parseSignature } from "./state.js";

/** A numpy-literal value as the page writes it -> the same value in JAX. */
export function valueToJax(text) {
  const t = String(text ?? "").trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) || t === "True" || t === "False") return t;
  const m = /^(?:np\.|jnp\.|numpy\.)?(zeros|ones|full)\s*\((.*)\)$/s.exec(t);
  if (m) {
    const ctor = m[1] === "full" ? "jnp.full" : `jnp.${m[1]}`;
    return m[1] === "full" ? `${ctor}(${m[2]})` : `${ctor}(${m[2]}, jnp.float32)`;
  }
  return `jnp.asarray(${t})`;
}

/** The Python snippet for a state (code + mask + values + mode). */
export function jaxSnippet(state) {
  const sig = parseSignature(state.code);
  if (!sig) return "# Define a function first, e.g. def f(x, y): return jnp.sin(x) * y\n";
  const { name, params } = sig;
  const vals = params.map((p) => valueToJax(state.values[p] ?? "1.0"));
  const unknowns = params.map((p) => !(state.known[p] ?? true));
  const py = (b) => (b ? "True" : "False");
  const code = state.code.replace(/\s+$/, "");
  const head = ["import jax", "import jax.numpy as jnp"];
  const lines = [];
  const argsLine = `args = (${vals.join(", ")}${vals.length === 1 ? "," : ""})`;
  // split: the mask; grad/checkpoint: the page (like jax.grad with every argnum) differentiates
  // with respect to every input
  const diff = params.map((p, i) => i).filter((i) => state.mode !== "split" || unknowns[i]);
  const diffNames = diff.map((i) => params[i]);
  const argnums = diff.length === 1 ? String(diff[0]) : `(${diff.join(", ")})`;

  if (state.mode === "split") {
    // JAX's per-output instantiate: the outputs forced into the unknown program
    const forced = state.instantiate ?? [];
    const instantiate = forced.some(Boolean) ? `[${forced.map(py).join(", ")}]` : "False";
    head.push("from jax._src.interpreters import partial_eval as pe");
    lines.push(
      argsLine,
      `closed = jax.make_jaxpr(${name})(*args)`,
      `unknowns = [${unknowns.map(py).join(", ")}]  # ${params.map((p, i) => `${p} ${unknowns[i] ? "unknown" : "known"}`).join(", ")}`,
      `known, unknown, out_unknowns, res_avals = pe.partial_eval_jaxpr_nounits(closed, unknowns, ${instantiate})`,
      "print(known)",
      "print(unknown)",
      "print('residuals:', res_avals)",
    );
  } else if (state.mode === "jit") {
    if (state.folding) {
      lines.push(
        "try:",
        "    jax.config.update('jax_eager_constant_folding', True)",
        "except AttributeError:",
        "    print('# this JAX has no jax_eager_constant_folding flag')",
      );
    }
    lines.push(argsLine, `print(jax.make_jaxpr(${name})(*args))`);
  } else {
    head.push("from jax.ad_checkpoint import print_saved_residuals");
    let f = name;
    lines.push(argsLine);
    if (state.mode === "checkpoint") {
      const named = state.policy === "save_only_these_names" || state.policy === "save_any_names_but_these";
      const names = [...state.code.matchAll(/checkpoint_name\([^\n]*?,\s*(["'][^"'\n]+["'])\s*\)/g)].map((m) => m[1]);
      const policy = `jax.checkpoint_policies.${state.policy}${named ? `(${[...new Set(names)].join(", ")})` : ""}`;
      lines.push(`${name}_remat = jax.checkpoint(${name}, policy=${policy})`);
      f = `${name}_remat`;
    }
    if (diff.length === 0) {
      lines.push("# the function takes no inputs: nothing to differentiate");
    } else {
      const fixed = params.map((p, i) => (unknowns[i] ? p : `args[${i}]`));
      lines.push(
        `# differentiate with respect to every input: ${diffNames.join(", ")}`,
        `out, f_lin = jax.linearize(lambda ${diffNames.join(", ")}: ${f}(${fixed.join(", ")}), ${diff.map((i) => `args[${i}]`).join(", ")})`,
        `print(jax.make_jaxpr(f_lin)(${diff.map((i) => `args[${i}]`).join(", ")}))  # the linear (unknown) program`,
        `print(jax.make_jaxpr(jax.grad(${f}, argnums=${argnums}))(*args))`,
        `print_saved_residuals(${f}, *args)`,
      );
    }
  }
  return `${head.join("\n")}\n\n${code}\n\n${lines.join("\n")}\n`;
}
