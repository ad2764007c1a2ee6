// The text in the presenter's lanes at classroom sizes: a Pod's chip, and text fitted to a lane's width
// (narrowed a little, then cut) or wrapped over lines (at spaces, and at capitals inside a long word).
// present.js draws the lanes with these; they hold no state of their own.
import { el } from "./svg.js";

export const CHIP_H = 36;
const LINE_H = 24; // a chip's second line
// Text a little too wide is drawn narrower, down to this share of its width, before it loses letters: a
// six-lane map at 1280 pixels shows "ContainerCreating" whole rather than "ContainerCre…".
const SQUEEZE = 0.75;

// A Pod's chip at ``y``: its name and status on one line; in a lane too narrow for both (six nodes at 1280
// pixels) the status alone, on two lines where a word break lets it stay whole (Container / Creating).
// ``followed``: the Pod is the one whose story is told; ``preempted``: the word said after a preempted Pod's status.
export function drawChip(lane, group, pod, y, followed, preempted) {
  const marks = `${followed ? " followed" : ""}${pod.preempted ? " preempted" : ""}`;
  const chip = el("g", { class: `chip ${pod.css}${marks}`, "data-pod": pod.name, tabindex: 0, role: "button" }, group);
  el("title", {}, chip).textContent = `${pod.namespace}/${pod.name}: ${pod.status}${pod.ip ? ` · IP ${pod.ip}` : ""}`;
  const box = el("rect", { x: lane.x + 12, y, width: lane.w - 24, height: CHIP_H, rx: 8 }, chip);
  chip.dataset.height = CHIP_H;
  const name = el("text", { x: lane.x + 24, y: y + CHIP_H / 2, "dominant-baseline": "central" }, chip);
  name.textContent = pod.name;
  const status = el("text", { class: "chip-status", x: lane.x + lane.w - 24, y: y + CHIP_H / 2,
    "dominant-baseline": "central", "text-anchor": "end" }, chip);
  const whole = pod.preempted ? `${pod.status} · ${preempted}` : pod.status;
  status.textContent = whole;
  // A status wider than half the chip (CrashLoopBackOff in a narrow lane) gives way too, so that the
  // name keeps room of its own instead of being drawn under it; the chip's title has both in full.
  fitText(status, (lane.w - 48) / 2);
  // A long Pod name gives way to its status: the end of a generated name is what tells Pods apart.
  const room = lane.w - 60 - status.getComputedTextLength();
  let value = pod.name;
  while (name.getComputedTextLength() > room && value.length > 3) {
    value = value.slice(1);
    name.textContent = `…${value}`;
  }
  if (name.getComputedTextLength() <= room) return chip;
  name.remove();
  if (fitOrWrap(status, whole, lane.w - 48, 2, LINE_H, lane.x + lane.w / 2) < 2) return chip;
  box.setAttribute("height", CHIP_H + LINE_H);
  chip.dataset.height = CHIP_H + LINE_H;
  return chip;
}

// ``t`` (an SVG text or tspan) within ``room`` pixels: narrowed down to SQUEEZE of its width, and cut with an
// ellipsis when that is not enough.
export function fitText(t, room) {
  t.removeAttribute("textLength");
  t.removeAttribute("lengthAdjust");
  let value = t.textContent;
  while (t.getComputedTextLength() * SQUEEZE > room && value.length > 4) {
    value = value.slice(0, -1);
    t.textContent = `${value.trimEnd()}…`;
  }
  if (t.getComputedTextLength() > room) {
    t.setAttribute("textLength", room);
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}

// ``value`` in the text ``t`` within ``room`` pixels: narrowed on one line while that keeps every letter, else on up
// to ``most`` lines (wrapLines'), ``lineH`` apart from ``t``'s own y, centred on ``centre`` when given; how many
// lines it takes.
export function fitOrWrap(t, value, room, most, lineH, centre = null) {
  t.textContent = value;
  fitText(t, room);
  if (!t.textContent.endsWith("…")) return 1;
  const lines = wrapLines(t.parentNode, t.getAttribute("class"), value, room, most);
  if (lines.length < 2) return 1;
  t.replaceChildren();
  t.removeAttribute("textLength");
  t.removeAttribute("lengthAdjust");
  if (centre !== null) {
    t.setAttribute("x", centre);
    t.setAttribute("text-anchor", "middle");
  }
  const [x, y] = [t.getAttribute("x"), Number(t.getAttribute("y"))];
  lines.forEach((line, i) => {
    const part = el("tspan", { x, y: y + i * lineH }, t);
    part.textContent = line;
    fitText(part, room);
  });
  return lines.length;
}

// ``value`` in at most ``most`` lines ``room`` wide in the type of class ``cls`` (measured in ``group``): broken
// at spaces, and inside a word too long for a line at a capital (Does|Not|Exist); the last line takes what is
// left, and fitText narrows or cuts it.
export function wrapLines(group, cls, value, room, most) {
  const probe = el("text", { class: cls }, group);
  const fits = (line, squeeze = 1) => {
    probe.textContent = line.trimEnd();
    return probe.getComputedTextLength() * squeeze <= room;
  };
  // Words whole where they fit a line even narrowed, a longer one in its capitalised parts.
  const pieces = value.split(/(?<=\s)/).flatMap((word) => (fits(word, SQUEEZE) ? [word] : word.split(/(?<=[a-z])(?=[A-Z])/)));
  const lines = [];
  let line = "";
  for (const piece of pieces) {
    if (line && !fits(line + piece) && lines.length < most - 1) {
      lines.push(line.trimEnd());
      line = "";
    }
    line += piece;
  }
  lines.push(line.trimEnd());
  probe.remove();
  return lines;
}
