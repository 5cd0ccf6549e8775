// Light / dark: follows the system until the toggle is used, then remembers the choice.

/** @param {HTMLElement} button */
export function mountThemeToggle(button) {
  const darkQuery = matchMedia("(prefers-color-scheme: dark)");
  const effective = () => document.documentElement.dataset.theme || (darkQuery.matches ? "dark" : "light");
  const show = () => {
    const dark = effective() === "dark";
    // a toggle button: its name is its visible text, the state is aria-pressed
    button.setAttribute("aria-pressed", String(dark));
    button.textContent = "Dark theme";
    button.title = dark ? "Dark theme on: press for the light theme" : "Dark theme off: press for the dark theme";
  };
  button.addEventListener("click", () => {
    const next = effective() === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem("pe-explainer.theme", next);
    } catch {
      /* private mode */
    }
    show();
  });
  darkQuery.addEventListener("change", show);
  show();
}
