// The flow diagram: kubectl, the API server, etcd, the controller manager, the scheduler and one lane per
// node (its kubelet and container runtime). Every delivered bus message moves as a numbered token along
// its arrow, and the caption (from the server, in the page's language) says what happened and why.
// It only draws what the server says was delivered; it never invents a hop.
import { el, pointAt } from "./svg.js";

const svg = document.getElementById("flow");
const timeline = document.getElementById("timeline");
const captionBox = document.getElementById("caption");

// At 1000 units wide a fifth lane's labels stop being readable; beyond that the last lane stands for the rest.
const MAX_LANES = 4;
const WIDTH = 1000;
const MOVE_MS = 750;
const MIN_FONT = 13;
// Projector mode shows the diagram at least 1.2 times its size (full width at 1280 pixels): 17 units are 20 px.
const PROJECTOR_MIN_FONT = 17;
const MAX_TOKENS = 30;
const MAX_ROWS = 300;
const BUS_Y = 164;
const LANE = { top: 174, boxTop: 182, boxHeight: 44, bottom: 254 };
const FIXED = {
  kubectl: { x: 20, y: 12, w: 180, h: 52 },
  apiserver: { x: 390, y: 12, w: 220, h: 52 },
  etcd: { x: 800, y: 12, w: 180, h: 52 },
  "controller-manager": { x: 20, y: 90, w: 270, h: 52 },
  scheduler: { x: 710, y: 90, w: 270, h: 52 },
};
const CLIENTS = new Set(["kubectl", "client", "dashboard"]);

const known = (svg?.dataset.nodes || "").split(" ").filter(Boolean);
let edges = new Map(); // "a|b" -> points from a to b
let shown = new Set(); // nodes with a lane of their own

function camel(key) {
  return key.replace(/(^|-)(\w)/g, (_m, _d, c) => c.toUpperCase());
}

function label(key) {
  return svg.dataset[`label${camel(key)}`] || key;
}

function alt(key) {
  return svg.dataset[`alt${camel(key)}`] || "";
}

// A box with the first of its names that fits, shrunk down to MIN_FONT and split over two lines if need be:
// a translated name or a narrow lane must not spill out of its box. ``alt`` is the name in the page's other
// language, in small type below: the seeds' Chinese terms stay beside the English ones.
function box(id, rect, names, parent, alt = "") {
  const group = el("g", { class: "box", "data-component": id }, parent);
  el("rect", { x: rect.x, y: rect.y, width: rect.w, height: rect.h, rx: 8 }, group);
  const text = el("text", { x: rect.x + rect.w / 2, y: rect.y + rect.h / 2 - (alt ? 7 : 0) }, group);
  fit(text, rect, names);
  if (alt) {
    el("text", { class: "alt", lang: svg.dataset.altLang, x: rect.x + rect.w / 2, y: rect.y + rect.h - 8 }, group)
      .textContent = alt;
  }
}

function fit(text, rect, names) {
  const room = rect.w - 14;
  const floor = document.body.classList.contains("projector-mode") ? PROJECTOR_MIN_FONT : MIN_FONT;
  const tries = names.flatMap((name) => {
    const words = name.split(" ");
    const half = Math.ceil(words.length / 2);
    return words.length > 1 ? [[name], [words.slice(0, half).join(" "), words.slice(half).join(" ")]] : [[name]];
  });
  for (const lines of tries) {
    text.replaceChildren();
    text.style.fontSize = "";
    lines.forEach((line, i) => {
      el("tspan", { x: text.getAttribute("x"), dy: i ? "1.05em" : `${0.35 - 0.525 * (lines.length - 1)}em` }, text)
        .textContent = line;
    });
    const base = parseFloat(getComputedStyle(text).fontSize);
    const widest = Math.max(...[...text.children].map((t) => t.getComputedTextLength()));
    // Two lines must also fit the box's height.
    const size = Math.min(base, Math.floor((base * room) / widest), lines.length > 1 ? Math.floor(rect.h / 2.3) : base);
    if (size >= floor) {
      text.style.fontSize = `${size}px`;
      return;
    }
  }
}

function edge(a, b, points, parent) {
  edges.set(`${a}|${b}`, points);
  edges.set(`${b}|${a}`, [...points].reverse());
  el("polyline", { class: "link", "data-edge": `${a}|${b}`, points: points.map((p) => p.join(",")).join(" ") }, parent);
}

// Lay the diagram out for the current node list: fixed boxes on top, then a lane per node below the bus.
function layout() {
  svg.replaceChildren();
  edges = new Map();
  const defs = el("defs", {}, svg);
  const marker = el("marker", { id: "flow-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5,
    markerHeight: 5, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z" }, marker);
  const links = el("g", { class: "links" }, svg);
  const drawn = el("g", { class: "boxes" }, svg);

  for (const [id, rect] of Object.entries(FIXED)) box(id, rect, [label(id)], drawn, alt(id));
  const api = FIXED.apiserver;
  edge("kubectl", "apiserver", [[200, 38], [390, 38]], links);
  edge("apiserver", "etcd", [[610, 38], [800, 38]], links);
  edge("apiserver", "controller-manager", [[440, api.y + api.h], [440, 116], [290, 116]], links);
  edge("apiserver", "scheduler", [[560, api.y + api.h], [560, 116], [710, 116]], links);

  const overflow = known.length > MAX_LANES;
  const lanes = overflow ? [...known.slice(0, MAX_LANES - 1), "*"] : known;
  shown = new Set(lanes.filter((n) => n !== "*"));
  const gap = 16;
  const width = lanes.length ? (WIDTH - 40 - gap * (lanes.length - 1)) / lanes.length : 0;
  lanes.forEach((node, i) => {
    const x = 20 + i * (width + gap);
    const name = node === "*" ? `+${known.length - shown.size} ${label("more")}` : node;
    const lane = el("g", { class: "lane", "data-node": node }, drawn);
    el("rect", { x, y: LANE.top, width, height: LANE.bottom - LANE.top, rx: 10 }, lane);
    const title = el("text", { class: "lane-name", x: x + width / 2, y: LANE.bottom - 8 }, lane);
    title.textContent = name;
    const inner = (width - 30) / 2;
    const kubelet = { x: x + 10, y: LANE.boxTop, w: inner, h: LANE.boxHeight };
    const runtime = { x: x + 20 + inner, y: LANE.boxTop, w: inner, h: LANE.boxHeight };
    box(`kubelet/${node}`, kubelet, [label("kubelet")], lane);
    box(`runtime/${node}`, runtime, [label("runtime"), label("runtime-short")], lane);
    const kx = kubelet.x + kubelet.w / 2;
    edge("apiserver", `kubelet/${node}`, [[500, api.y + api.h], [500, BUS_Y], [kx, BUS_Y], [kx, LANE.boxTop]], links);
    const my = LANE.boxTop + LANE.boxHeight / 2;
    edge(`kubelet/${node}`, `runtime/${node}`, [[kubelet.x + kubelet.w, my], [runtime.x, my]], links);
  });
  el("polyline", { id: "flow-focus", class: "focus", points: "", "marker-end": "url(#flow-arrow)" }, svg);
  el("g", { id: "tokens" }, svg);
}

// Which box a component of the trace is drawn as; null when it has no place in the diagram.
function place(component, object) {
  if (CLIENTS.has(component)) return "kubectl";
  if (component.endsWith("-controller") || component === "garbage-collector") return "controller-manager";
  const [kind, named] = component.split("/");
  if (kind === "kubelet" || kind === "runtime") {
    // The kubelets' shared Node watch names no node; the Node it carries says whose it is.
    const node = named || (object?.kind === "Node" ? object.name : "");
    if (!node) return null;
    if (!known.includes(node)) {
      known.push(node);
      known.sort();
      layout();
    }
    return `${kind}/${shown.has(node) ? node : "*"}`;
  }
  return FIXED[component] ? component : null;
}

function route(message) {
  const from = place(message.from, message.object);
  const to = place(message.to, message.object);
  return from && to ? edges.get(`${from}|${to}`) ?? null : null;
}

function focus(points) {
  const line = document.getElementById("flow-focus");
  line?.setAttribute("points", points ? points.map((p) => p.join(",")).join(" ") : "");
}

function say(message, caption) {
  const badge = captionBox.querySelector(".step");
  badge.hidden = !message.step;
  badge.textContent = message.step ?? "";
  captionBox.querySelector(".text").textContent = caption.what;
  captionBox.querySelector(".caption-why").textContent = caption.why;
}

// Move a numbered token along the message's arrow; the newest one stays parked where it arrived.
function send(message, caption) {
  say(message, caption);
  const points = route(message);
  focus(points);
  if (!points) return;
  const tokens = document.getElementById("tokens");
  tokens.querySelectorAll(".token.parked").forEach((t) => t.remove());
  while (tokens.childElementCount >= MAX_TOKENS) tokens.firstChild.remove();
  const token = el("g", { class: `token${message.step ? "" : " unnumbered"}` }, tokens);
  el("circle", { r: message.step ? 16 : 9 }, token);
  if (message.step) el("text", { dy: 6 }, token).textContent = message.step;
  const began = performance.now();
  const frame = (now) => {
    if (!token.isConnected) return;
    const t = Math.min(1, (now - began) / MOVE_MS);
    const eased = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
    const [x, y] = pointAt(points, eased);
    token.setAttribute("transform", `translate(${x} ${y})`);
    if (t < 1) requestAnimationFrame(frame);
    else if (token === tokens.lastElementChild) token.classList.add("parked");
    else token.remove();
  };
  requestAnimationFrame(frame);
}

function fromRow(row) {
  const [kind, ...name] = (row.dataset.object || "").split("/");
  return {
    message: { from: row.dataset.from, to: row.dataset.to, step: Number(row.dataset.step) || null,
      object: { kind, name: name.join("/") } },
    caption: { what: row.querySelector(".what")?.textContent ?? "", why: row.dataset.why ?? "" },
  };
}

function select(row) {
  timeline.querySelectorAll("li.selected").forEach((r) => {
    r.classList.remove("selected");
    r.removeAttribute("aria-current");
  });
  row.classList.add("selected");
  row.setAttribute("aria-current", "true");
  captionBox.classList.add("replay");
  const { message, caption } = fromRow(row);
  send(message, caption);
}

if (svg) {
  layout();
  // The names are fitted to their boxes at the mode's type size.
  document.addEventListener("clusterviz:projector", layout);
  document.body.addEventListener("htmx:wsAfterMessage", (event) => {
    const text = event.detail.message;
    if (typeof text !== "string" || !text.startsWith("{")) return;
    const data = JSON.parse(text);
    if (!data.flows) return;
    captionBox.classList.remove("replay");
    for (const { flow, caption } of data.flows) send(flow, caption ?? { what: flow.summary, why: "" });
    while (timeline.childElementCount > MAX_ROWS) timeline.lastElementChild.remove();
  });
  timeline.addEventListener("click", (event) => {
    const row = event.target.closest("li[data-seq]");
    if (row) select(row);
  });
  timeline.addEventListener("keydown", (event) => {
    const row = event.target.closest("li[data-seq]");
    if (!row || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    select(row);
  });
}

document.addEventListener("keydown", (event) => {
  if (event.code === "Space" && event.target === document.body) {
    event.preventDefault();
    document.getElementById("step")?.click();
  }
});
