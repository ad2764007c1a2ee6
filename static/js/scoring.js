// Steps through the scoring panel: the filters node by node, then the score plugins one by one, then the
// selection. The server numbers every revealable element (data-step) and every sentence to say
// (data-say); this module only hides what lies beyond the current step, so nothing is computed twice.
const STEPPING = "clusterviz-scoring-stepping";
// Plugins equal on every node are folded away unless the teacher has asked to see them.
const UNFOLDED = "clusterviz-scoring-unfolded";

function typing(target) {
  return target.closest?.("input, textarea, select, [contenteditable], .CodeMirror");
}

function setup(panel) {
  const final = Number(panel.dataset.final);
  const count = panel.querySelector(".step-count");
  const button = (name) => panel.querySelector(`[data-stepper="${name}"]`);
  let current = final;

  const show = (step, walking) => {
    current = Math.max(0, Math.min(final, step));
    // A teacher who steps through one Pod will want to step through the next one too.
    sessionStorage.setItem(STEPPING, walking ? "on" : "off");
    panel.classList.toggle("walking", walking);
    // Until the selection is revealed, the winner must not give itself away.
    panel.classList.toggle("undecided", current < final);
    panel.querySelectorAll("[data-step]").forEach((el) => {
      const at = Number(el.dataset.step);
      el.classList.toggle("step-hidden", at > current);
      el.classList.toggle("step-current", walking && at === current);
    });
    panel.querySelectorAll("[data-plugin-step]").forEach((el) => {
      el.classList.toggle("step-current", walking && Number(el.dataset.pluginStep) === current);
    });
    panel.querySelectorAll("[data-say]").forEach((el) => {
      el.hidden = !walking || Number(el.dataset.say) !== current;
    });
    count.textContent = walking ? `${current} / ${final}` : "";
    if (walking) panel.querySelector(".step-current")?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    button("back").disabled = !walking || current === 0;
    button("next").disabled = walking && current === final;
  };
  const walking = () => panel.classList.contains("walking");
  // "Next" from the full view starts the walk at its beginning.
  const next = () => (walking() ? show(current + 1, true) : show(0, true));
  const back = () => show(current - 1, true);

  const fold = panel.querySelector("[data-fold]");
  const unfold = (on) => {
    sessionStorage.setItem(UNFOLDED, on ? "on" : "off");
    panel.classList.toggle("fold-equal", !on);
    fold?.setAttribute("aria-pressed", on ? "true" : "false");
  };
  unfold(sessionStorage.getItem(UNFOLDED) === "on");

  panel.addEventListener("click", (event) => {
    if (event.target.closest("[data-fold]")) {
      unfold(panel.classList.contains("fold-equal"));
      return;
    }
    const action = event.target.closest("[data-stepper]")?.dataset.stepper;
    if (action === "start") show(0, true);
    else if (action === "next") next();
    else if (action === "back") back();
    else if (action === "all") show(final, false);
  });
  panel.stepper = { next, back };
  if (sessionStorage.getItem(STEPPING) === "on") show(0, true);
  else show(final, false);
}

document.body.addEventListener("htmx:afterSwap", (event) => {
  const panel = event.detail.target.querySelector?.("#scoring-panel");
  if (panel) setup(panel);
});

// A new attempt for the Pod on show (the scheduler talks about it again) reloads the panel with it,
// unless a teacher is walking through the current one.
let reload = null;
document.body.addEventListener("htmx:wsAfterMessage", (event) => {
  const text = event.detail.message;
  const panel = document.getElementById("scoring-panel");
  if (!panel || typeof text !== "string" || !text.startsWith("{")) return;
  const flows = JSON.parse(text).flows ?? [];
  const about = ({ flow }) =>
    flow.object?.kind === "Pod" &&
    `${flow.object.namespace}/${flow.object.name}` === panel.dataset.pod &&
    (flow.from === "scheduler" || flow.to === "scheduler");
  if (!flows.some(about) || panel.classList.contains("walking")) return;
  clearTimeout(reload);
  reload = setTimeout(() => htmx.ajax("GET", panel.dataset.latest, { target: "#scoring", swap: "innerHTML" }), 500);
});

document.addEventListener("keydown", (event) => {
  const panel = document.getElementById("scoring-panel");
  if (!panel?.stepper || typing(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === "ArrowRight") panel.stepper.next();
  else if (event.key === "ArrowLeft") panel.stepper.back();
  else return;
  event.preventDefault();
});
