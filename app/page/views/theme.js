// Light / dark: follows the system until the toggle is used, then remembers the choice.

export function mountThemeToggle(button) {
  const darkQuery = matchMedia("(prefers-color-scheme: dark)");
  const effective = () => document.documentElement.dataset.theme || (darkQuery.matches ? "dark" : "light");
  const show = () => {
    const dark = effective() === "dark";
    button.setAttribute("aria-pressed", String(dark));
    button.textContent = dark ? "Theme: dark" : "Theme: light";
    button.setAttribute(
      "aria-label",
      `Dark theme ${dark ? "on" : "off"}: press to switch to the ${dark ? "light" : "dark"} theme`,
    );
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
