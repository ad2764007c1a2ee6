// Projector mode: larger type and stronger contrast, remembered per browser.
const button = document.getElementById("projector");
const apply = (on) => {
  document.body.classList.toggle("projector-mode", on);
  button?.setAttribute("aria-pressed", String(on));
};
apply(localStorage.getItem("clusterviz-projector") === "on");
button?.addEventListener("click", () => {
  const on = !document.body.classList.contains("projector-mode");
  localStorage.setItem("clusterviz-projector", on ? "on" : "off");
  apply(on);
  // The flow diagram fits its labels again, at the new size.
  document.dispatchEvent(new CustomEvent("clusterviz:projector", { detail: on }));
});
