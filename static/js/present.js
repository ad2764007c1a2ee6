// The presenter view: the cluster map (control plane above, a lane per node below with its Pods),
// one Pod's story told beat by beat (Next / Back), the scheduler's verdicts and scores drawn in the
// lanes at hop 9, and subtitles. It draws only what the server reports: the story comes from
// story.json (built from the trace), the lanes from the websocket's list-watch frames.
import { CHIP_H, drawChip, fitOrWrap, fitText, wrapLines } from "./lane_text.js";
import { el, pointAt } from "./svg.js";

const root = document.getElementById("present");
const svg = document.getElementById("map");
const data = root.dataset;
// ?anim=0 draws every hop at once (for rehearsing a lesson quickly, and for tests).
const MOVE_MS = new URLSearchParams(location.search).get("anim") === "0" ? 0 : 700;
// Six lanes still hold a Pod chip and a verdict at 20 px on a 1920-pixel screen; beyond, the last stands for the rest.
const MAX_LANES = 6;
const BOX_H = 64;
const VERDICT_H = 84; // the verdict's two lines
const REASON_LINE = 23; // from one line of a verdict's reason to the next
// A verdict's text from the lane's edges (8 pixels inside its box): a six-lane map at 1280 pixels then has room for
// "NodeAffinity" and "DoesNotExist" a line each.
const VERDICT_PAD = 20;

let known = (data.nodes || "").split(" ").filter(Boolean);
let edges = new Map();
let lanes = new Map(); // node -> {x, y, w, h, group}
let state = { nodes: [], pending: [], services: [] };
let story = { beats: [], progress: 0, last: 13, pod: "", others: 0, skipped: [] };
let view = -1; // the beat on show
let played = 0; // beats already told once (new ones play when they arrive)
let scoring = null; // {record, revealed} while hop 9 is on show
let clock = { wall: 0, at: 0, speed: 1, live: false };
const queues = new Map(); // edge -> promise: tokens on one arrow queue, they never stack

function text(key) {
  return data[`text${key[0].toUpperCase()}${key.slice(1)}`] || key;
}

function label(key) {
  const camel = key.replace(/(^|-)(\w)/g, (_m, _d, c) => c.toUpperCase());
  return data[`label${camel}`] || key;
}

function csrf() {
  return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
}

async function post(url, body = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "X-CSRFToken": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body),
  });
  return (response.headers.get("Content-Type") || "").includes("json") ? response.json() : null;
}

// --- layout --------------------------------------------------------------------------------

function box(id, rect, name, parent) {
  const group = el("g", { class: "box", "data-component": id }, parent);
  el("rect", { x: rect.x, y: rect.y, width: rect.w, height: rect.h, rx: 10 }, group);
  const caption = el("text", { x: rect.x + rect.w / 2, y: rect.y + rect.h / 2, "dominant-baseline": "central",
    "text-anchor": "middle" }, group);
  caption.textContent = name;
  // Shrink a long name to its box, never below the 20 px floor of the view.
  const room = rect.w - 16;
  const wide = caption.getComputedTextLength();
  if (wide > room) caption.style.fontSize = `${Math.max(20, Math.floor((24 * room) / wide))}px`;
  return group;
}

function edge(a, b, points, parent, cls = "link") {
  edges.set(`${a}|${b}`, points);
  edges.set(`${b}|${a}`, [...points].reverse());
  el("polyline", { class: cls, "data-edge": `${a}|${b}`, points: points.map((p) => p.join(",")).join(" ") }, parent);
}

function layout() {
  // The drawn size to the fraction of a pixel (clientWidth rounds it): one unit of the map is one CSS pixel,
  // so 20 px type stays 20 px, not 19.99.
  const drawn = svg.getBoundingClientRect();
  const W = Math.max(600, drawn.width);
  const H = Math.max(400, drawn.height);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  edges = new Map();
  lanes = new Map();
  const links = el("g", { class: "links" }, svg);
  const boxes = el("g", { class: "boxes" }, svg);
  const side = Math.round(W * 0.2);
  const fixed = {
    kubectl: { x: 8, y: 8, w: side, h: BOX_H },
    apiserver: { x: W / 2 - W * 0.14, y: 8, w: W * 0.28, h: BOX_H },
    etcd: { x: W - side - 8, y: 8, w: side, h: BOX_H },
    "controller-manager": { x: 8, y: BOX_H + 44, w: W * 0.3, h: BOX_H },
    scheduler: { x: W - W * 0.3 - 8, y: BOX_H + 44, w: W * 0.3, h: BOX_H },
  };
  for (const [id, rect] of Object.entries(fixed)) box(id, rect, label(id), boxes);
  const api = fixed.apiserver;
  const mid = BOX_H / 2 + 8;
  edge("kubectl", "apiserver", [[fixed.kubectl.x + side, mid], [api.x, mid]], links);
  edge("apiserver", "etcd", [[api.x + api.w, mid], [fixed.etcd.x, mid]], links);
  const rowB = fixed.scheduler.y + BOX_H / 2;
  edge("apiserver", "controller-manager", [[api.x + 30, api.y + BOX_H], [api.x + 30, rowB], [fixed["controller-manager"].x + fixed["controller-manager"].w, rowB]], links);
  edge("apiserver", "scheduler", [[api.x + api.w - 30, api.y + BOX_H], [api.x + api.w - 30, rowB], [fixed.scheduler.x, rowB]], links);
  const services = el("g", { id: "services" }, svg);
  const top = fixed.scheduler.y + BOX_H + 52;
  const busY = top - 22;
  const overflow = known.length > MAX_LANES;
  const shown = overflow ? [...known.slice(0, MAX_LANES - 1), "*"] : known;
  const gap = 14;
  const width = shown.length ? (W - 16 - gap * (shown.length - 1)) / shown.length : 0;
  shown.forEach((node, i) => {
    const x = 8 + i * (width + gap);
    const lane = el("g", { class: "lane", "data-node": node }, boxes);
    el("rect", { class: "lane-bg", x, y: top, width, height: H - top - 6, rx: 12 }, lane);
    const name = el("text", { class: "lane-name", x: x + 14, y: top + 30 }, lane);
    name.textContent = node === "*" ? `+${known.length - MAX_LANES + 1} ${text("more")}` : node;
    // The state has a line of its own under the name: "NotReady · kubelet stopped" beside the name would run
    // over it. A narrow lane says "runtime"; only a very narrow one also stacks its kubelet above its runtime,
    // which costs the height of a Pod chip or two on a 720-pixel screen.
    const narrow = width < 380;
    const stacked = width < 280;
    const status = el("text", { class: "lane-state", x: x + 14, y: top + 58 }, lane);
    el("tspan", {}, status);
    el("title", {}, status);
    const boxTop = top + 72;
    const inner = (width - 36) / 2;
    const kubelet = stacked ? { x: x + 12, y: boxTop, w: width - 24, h: 44 } : { x: x + 12, y: boxTop, w: inner, h: BOX_H - 8 };
    const runtime = stacked ? { x: x + 12, y: boxTop + 56, w: width - 24, h: 44 }
      : { x: x + 24 + inner, y: boxTop, w: inner, h: BOX_H - 8 };
    box(`kubelet/${node}`, kubelet, label("kubelet"), lane);
    box(`runtime/${node}`, runtime, label(narrow ? "runtime-short" : "runtime"), lane);
    const kx = kubelet.x + kubelet.w / 2;
    edge("apiserver", `kubelet/${node}`, [[api.x + api.w / 2, api.y + BOX_H], [api.x + api.w / 2, busY], [kx, busY], [kx, kubelet.y]], links);
    if (stacked) edge(`kubelet/${node}`, `runtime/${node}`, [[kx, kubelet.y + kubelet.h], [kx, runtime.y]], links);
    else {
      const my = kubelet.y + kubelet.h / 2;
      edge(`kubelet/${node}`, `runtime/${node}`, [[kubelet.x + kubelet.w, my], [runtime.x, my]], links);
    }
    el("g", { class: "verdict" }, lane);
    el("g", { class: "chips" }, lane);
    // Under the boxes: the Pods; at hop 9 the scheduler's verdict (two lines) comes first and they move down.
    const verdictTop = runtime.y + runtime.h + 10;
    // A NotReady node's eviction countdown is the moment of its lesson: drawn large above its Pods.
    el("text", { class: "lane-countdown", x: x + width / 2, "text-anchor": "middle", "dominant-baseline": "central" }, lane);
    lanes.set(node, { x, y: top, w: width, h: H - top - 6, group: lane, verdictTop });
  });
  el("g", { id: "tokens" }, svg);
  if (scoring) drawScoring();
  drawState();
  services.remove();
  svg.insertBefore(services, svg.querySelector("#tokens"));
}

// --- the lanes' contents -------------------------------------------------------------------

function laneOf(node) {
  return lanes.get(node) ?? lanes.get("*");
}

function drawState() {
  const names = state.nodes.map((n) => n.name);
  if (names.length && names.join(" ") !== known.join(" ")) {
    known = names;
    layout();
    return;
  }
  const chipsByLane = new Map();
  for (const node of state.nodes) {
    const lane = laneOf(node.name);
    if (!lane) continue;
    if (lanes.get(node.name)) {
      lane.group.classList.toggle("notready", !node.ready);
      lane.group.classList.toggle("cordoned", node.unschedulable);
      lane.group.querySelector('[data-component^="kubelet/"]')?.classList.toggle("stopped", node.kubeletStopped);
      const parts = [node.ready ? `✓ ${text("ready")}` : `✗ ${text("notready")}`];
      if (node.kubeletStopped) parts.push(text("stopped"));
      // Preemption made room here: the Pending Pods waiting for it are named on the lane.
      const nominated = node.nominated ?? [];
      lane.group.classList.toggle("nominated", nominated.length > 0);
      if (nominated.length) parts.push(`${text("nominated")} ${nominated.join(", ")}`);
      // What does not fit the lane gives way whole, from the end (the kubelet's box shows it stopped),
      // and its title, shown on hover, has all of it.
      const status = lane.group.querySelector(".lane-state");
      const shown = status.querySelector("tspan");
      status.querySelector("title").textContent = parts.join(" · ");
      for (let kept = parts.length; kept > 0; kept--) {
        shown.textContent = parts.slice(0, kept).join(" · ") + (kept < parts.length ? " · …" : "");
        if (shown.getComputedTextLength() <= lane.w - 28) break;
      }
      fitText(shown, lane.w - 28);
      lane.group.querySelector(".lane-countdown").dataset.evictAt = node.evictAt || "";
    }
    chipsByLane.set(lane, [...(chipsByLane.get(lane) ?? []), ...node.pods]);
  }
  for (const lane of lanes.values()) drawChips(lane, chipsByLane.get(lane) ?? []);
  drawServices();
  tick();
}

function drawChips(lane, pods) {
  const group = lane.group.querySelector(".chips");
  group.replaceChildren();
  let top = scoring ? lane.verdictTop + (lane.verdictH ?? VERDICT_H) : lane.verdictTop;
  const countdown = lane.group.querySelector(".lane-countdown");
  if (countdown.dataset.evictAt && !scoring) {
    countdown.setAttribute("y", top + CHIP_H / 2);
    top += CHIP_H + 8;
  }
  // A chip for each Pod that fits, then a line saying how many more there are; none while a verdict fills
  // the lane. The chips above give way to that line when it has no room.
  const bottom = lane.y + lane.h - 8;
  if (top + CHIP_H > bottom) return;
  const drawn = [];
  let y = top;
  // The Pod whose story is told comes first, so that it is never the one counted in "+N more".
  const followed = pods.filter((pod) => pod.name === story.pod);
  for (const pod of [...followed, ...pods.filter((pod) => pod.name !== story.pod)]) {
    const chip = drawChip(lane, group, pod, y, pod.name === story.pod, text("preempted"));
    const height = Number(chip.dataset.height);
    if (y + height > bottom) {
      chip.remove();
      break;
    }
    drawn.push([chip, y]);
    y += height + 8;
  }
  if (drawn.length === pods.length) return;
  while (drawn.length && y + CHIP_H > bottom) {
    const [chip, at] = drawn.pop();
    chip.remove();
    y = at;
  }
  const more = el("text", { class: "more", x: lane.x + 24, y: y + CHIP_H / 2, "dominant-baseline": "central" }, group);
  more.textContent = `+${pods.length - drawn.length} ${text("more")}`;
}

function chipCentre(podName) {
  const chip = svg.querySelector(`.chip[data-pod="${CSS.escape(podName)}"] rect`);
  if (!chip) return null;
  return [Number(chip.getAttribute("x")) + 6, Number(chip.getAttribute("y")) + Number(chip.getAttribute("height")) / 2];
}

// A Service is drawn under the API server with a line to each Pod its Endpoints list (dashed: not ready).
function drawServices() {
  const group = svg.querySelector("#services");
  if (!group) return;
  group.replaceChildren();
  const api = svg.querySelector('[data-component="apiserver"] rect');
  if (!api) return;
  const W = Number(svg.getAttribute("viewBox").split(" ")[2]);
  state.services.forEach((service, i) => {
    const w = Math.min(W * 0.22, 320);
    const x = W / 2 - w / 2 + i * (w + 10);
    const y = BOX_H + 44;
    const item = el("g", { class: "service", "data-service": service.name }, group);
    for (const target of service.endpoints) {
      const at = chipCentre(target.pod);
      if (!at) continue;
      el("path", { class: `endpoint${target.ready ? "" : " notready"}`, "data-pod": target.pod,
        d: `M${x + w / 2},${y + BOX_H} C${x + w / 2},${at[1] - 60} ${at[0] - 40},${at[1]} ${at[0]},${at[1]}` }, item);
    }
    el("rect", { x, y, width: w, height: BOX_H, rx: 32 }, item);
    const t = el("text", { x: x + w / 2, y: y + BOX_H / 2, "dominant-baseline": "central", "text-anchor": "middle" }, item);
    t.textContent = `Service ${service.name} · ${service.endpoints.filter((e) => e.ready).length}`;
    el("title", {}, item).textContent = `${service.clusterIP} → ${service.endpoints.map((e) => e.ip).join(", ")}`;
  });
}

// The eviction countdown of a NotReady node, against the simulated clock (it runs at the chosen speed).
// It gives way to the scheduler's verdict at hop 9.
function tick() {
  const now = clock.wall + (clock.live ? (performance.now() - clock.at) * clock.speed : 0);
  svg.querySelectorAll(".lane-countdown").forEach((countdown) => {
    const at = Date.parse(countdown.dataset.evictAt || "");
    if (!at || !clock.wall || scoring) {
      countdown.textContent = "";
      return;
    }
    const left = Math.ceil((at - now) / 1000);
    countdown.textContent = left > 0 ? `${text("evict")} ${left} s` : text("evicting");
  });
}
setInterval(tick, 250);

// --- tokens --------------------------------------------------------------------------------

const CLIENTS = new Set(["kubectl", "client", "dashboard"]);

function place(component, object) {
  if (CLIENTS.has(component)) return "kubectl";
  if (component.endsWith("-controller") || component === "garbage-collector" || component === "controller-manager") return "controller-manager";
  const [kind, node] = component.split("/");
  if (kind === "kubelet" || kind === "runtime") {
    const name = node || (object?.kind === "Node" ? object.name : "");
    if (!name) return null;
    return `${kind}/${lanes.has(name) ? name : "*"}`;
  }
  return ["apiserver", "etcd", "scheduler"].includes(component) ? component : null;
}

function move(points, tag) {
  return new Promise((resolve) => {
    const tokens = svg.querySelector("#tokens");
    tokens.querySelectorAll(".token.parked").forEach((t) => t.remove());
    const token = el("g", { class: "token" }, tokens);
    el("circle", { r: 24 }, token);
    el("text", { "dominant-baseline": "central", "text-anchor": "middle" }, token).textContent = tag;
    const began = performance.now();
    const frame = (now) => {
      const t = MOVE_MS ? Math.min(1, (now - began) / MOVE_MS) : 1;
      const eased = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      const [x, y] = pointAt(points, eased);
      token.setAttribute("transform", `translate(${x} ${y})`);
      if (t < 1 && token.isConnected) requestAnimationFrame(frame);
      else {
        token.classList.add("parked");
        resolve();
      }
    };
    requestAnimationFrame(frame);
  });
}

// Tokens on the same arrow wait for each other instead of stacking.
function send(message, tag) {
  const from = place(message.from, message.object);
  const to = place(message.to, message.object);
  const points = from && to ? edges.get(`${from}|${to}`) : null;
  svg.querySelectorAll(".link.on").forEach((l) => l.classList.remove("on"));
  if (!points) return Promise.resolve();
  const key = [from, to].sort().join("|");
  svg.querySelector(`[data-edge="${from}|${to}"], [data-edge="${to}|${from}"]`)?.classList.add("on");
  const run = (queues.get(key) ?? Promise.resolve()).then(() => move(points, tag));
  queues.set(key, run);
  return run;
}

// --- the story -----------------------------------------------------------------------------

function tagOf(beat, message) {
  return beat.label.includes("–") ? `${message.step}a` : beat.label;
}

function subtitle(hop, what, why) {
  const badge = document.getElementById("sub-hop");
  badge.hidden = !hop;
  badge.textContent = hop;
  document.getElementById("sub-what").textContent = what;
  document.getElementById("sub-why").textContent = why;
}

function showProgress() {
  const beat = story.beats[view];
  document.getElementById("hop-label").textContent = beat ? beat.label : "–";
  document.getElementById("progress").textContent = `${beat ? beat.number : 0} / ${story.last}`;
  document.getElementById("others").textContent = story.others ? `+${story.others} ${text("others")}` : "";
  document.getElementById("back").disabled = view <= 0;
  document.getElementById("open-scoring").disabled = !story.pod;
  svg.querySelectorAll(".chip").forEach((c) => c.classList.toggle("followed", c.dataset.pod === story.pod));
}

let playing = Promise.resolve();
let queued = 0;

// Animations run one after the other; data-playing says whether any is still running.
function later(fn) {
  queued += 1;
  root.dataset.playing = "true";
  playing = playing.then(fn).catch(console.error).finally(() => {
    queued -= 1;
    if (!queued) root.dataset.playing = "false";
  });
  return playing;
}

function play(index) {
  return later(async () => {
    view = index;
    const beat = story.beats[index];
    if (!beat) return;
    showProgress();
    // The verdicts and scores stay in the lanes while the binding travels (9-11), then make room again.
    if (beat.number < 9 || beat.number > 11) clearScoring();
    for (const message of beat.messages) {
      const tag = tagOf(beat, message);
      subtitle(tag, message.caption.what, message.caption.why);
      await send(message, tag);
    }
    if (beat.label === "9") await showScoring(false);
    if (beat.label !== "9" && beat.number <= 11 && !scoring) await showScoring(true);
    if (beat.label === "10" && scoring?.record.selected) await bindToLane(scoring.record.selected);
    if (story.skipped.length && beat.label === "12") {
      document.getElementById("sub-why").textContent += ` (9–11 ${text("skipped")})`;
    }
  });
}

function absorb(payload) {
  const podChanged = payload.pod !== story.pod;
  story = payload;
  if (podChanged) played = Math.max(0, story.beats.length - 1);
  for (let i = played; i < story.beats.length; i++) play(i);
  played = story.beats.length;
  showProgress();
}

async function next() {
  if (root.dataset.busy === "true") return;
  if (scoring && !scoring.revealed && view === story.beats.findIndex((b) => b.label === "9")) {
    later(() => revealScores());
    return;
  }
  if (view < story.beats.length - 1) {
    play(view + 1);
    return;
  }
  if (clock.live) return; // live: the story tells itself as it happens
  // A button's command still on its way: this press delivers its hops, the next one moves the script on.
  const answering = () => document.querySelector("#outcome .flash.queued") !== null;
  const waited = answering();
  root.dataset.busy = "true";
  try {
    const before = story.beats.length;
    const payload = await post(data.next);
    absorb(payload);
    if (payload.stop) {
      // A hop outside the story (a button's write, the lesson going on): shown, not added to the story.
      const tag = payload.stop.step ? String(payload.stop.step) : "";
      later(async () => {
        subtitle(tag, payload.stop.caption.what, payload.stop.caption.why);
        await send(payload.stop, tag || "•");
      });
    } else if (payload.wait) {
      // A countdown began (a NoExecute taint): the class sees it before the next press moves the clock on.
      later(() => subtitle("", payload.wait.what, payload.wait.why));
    } else if (story.beats.length === before) {
      // The story is told as far as it goes: the script moves on instead, once its button's command has
      // answered and the answer has been seen.
      const nextStep = document.getElementById("next-step");
      if (waited || answering()) return;
      if (nextStep && !nextStep.disabled) {
        nextStep.click();
        // Busy until the next step is shown: a second press meanwhile would skip it.
        for (let tries = 0; tries < 100 && document.getElementById("next-step") === nextStep; tries++) await sleep(50);
      } else subtitle("", text("nothing"), "");
    }
  } finally {
    root.dataset.busy = "false";
  }
}

function back() {
  if (view > 0) play(view - 1);
}

// Hop 10's decision drawn where it lands: from the scheduler to the chosen node's lane.
function bindToLane(node) {
  const scheduler = svg.querySelector('[data-component="scheduler"] rect');
  const lane = lanes.get(node);
  if (!scheduler || !lane) return Promise.resolve();
  const x = Number(scheduler.getAttribute("x")) + Number(scheduler.getAttribute("width")) / 2;
  const y = Number(scheduler.getAttribute("y")) + Number(scheduler.getAttribute("height"));
  const mid = lane.x + lane.w / 2;
  const points = [[x, y], [x, lane.y - 10], [mid, lane.y - 10], [mid, lane.y + 36]];
  svg.querySelectorAll(".binding").forEach((line) => line.remove());
  el("polyline", { class: "binding", points: points.map((p) => p.join(",")).join(" ") }, svg.querySelector("#tokens"));
  return move(points, "10");
}

// --- hop 9 drawn in the lanes: verdicts, a pause to predict, then the scores and the winner ----

function clearScoring() {
  const shown = scoring !== null;
  scoring = null;
  svg.querySelectorAll(".binding").forEach((line) => line.remove());
  svg.querySelectorAll(".lane .verdict").forEach((g) => g.replaceChildren());
  svg.querySelectorAll(".lane").forEach((l) => l.classList.remove("winner", "loser"));
  if (shown) drawState(); // the Pods move back up
}

async function showScoring(revealed) {
  const pod = story.pod;
  const ns = story.beats[view]?.messages[0]?.object.namespace || "default";
  const url = `${data.decisions}${ns}/schedulingdecisions?labelSelector=${encodeURIComponent(`clusterviz.io/pod=${pod}`)}`;
  const listed = await (await fetch(url)).json();
  const records = (listed.items || []).sort((a, b) => a.attempt - b.attempt);
  if (!records.length) return;
  scoring = { record: records[0], revealed: false };
  drawScoring();
  drawState(); // the Pods move down to make room for the verdicts
  if (!scoring.record.selected) {
    subtitle("9", text("nofit"), story.noFit?.text || "");
    // Upstream's own words beside the translation, in small type, as the scoring panel shows them.
    if (story.noFit && story.noFit.upstream !== story.noFit.text) {
      const upstream = document.createElement("small");
      upstream.lang = "en";
      upstream.className = "upstream";
      upstream.textContent = ` ${story.noFit.upstream}`;
      document.getElementById("sub-why").append(upstream);
    }
    return;
  }
  if (revealed) await revealScores(true);
  else document.getElementById("sub-why").textContent = text("predict");
}

// The verdict's two lines: the first failing filter (or "fits") and its reason (or the score as it grows).
function verdictLines(node) {
  if (node.feasible) return [`✓ ${text("fits")}`, ""];
  const failed = node.filters.find((f) => f.status !== "Success" && f.status !== "Skip" && f.status !== "");
  return failed ? [`✗ ${failed.plugin}`, shortReason(failed)] : ["✗", ""];
}

// What decided a failing filter, in the words of the Pod's YAML where the record has its inputs.
function shortReason(filter) {
  const inputs = filter.inputs || {};
  const unmatched = [...(inputs.nodeSelector || []).filter((p) => !p.matched).map((p) => `${p.key}=${p.value}`),
    ...(inputs.requiredTerms || []).flatMap((t) => t.expressions.filter((e) => !e.matched).map((e) => e.expression))];
  if (unmatched.length) return unmatched[0];
  const taint = inputs.untoleratedTaint;
  if (taint) return `${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
  const taken = (inputs.ports || []).find((p) => p.heldBy);
  if (taken) return `${taken.port}/${taken.protocol} ← ${taken.heldBy}`;
  return filter.reason;
}

function drawScoring() {
  if (!scoring) return;
  for (const node of scoring.record.nodes || []) {
    const lane = lanes.get(node.name);
    if (!lane) continue;
    const group = lane.group.querySelector(".verdict");
    group.replaceChildren();
    const y = lane.verdictTop;
    const [first, second] = verdictLines(node);
    const box = el("rect", { class: node.feasible ? "ok" : "bad", x: lane.x + 12, y, width: lane.w - 24, rx: 8 }, group);
    const head = el("text", { class: "verdict-text", x: lane.x + VERDICT_PAD, y: y + 20, "dominant-baseline": "central" }, group);
    const wide = lane.w - 2 * VERDICT_PAD;
    // The plugin's name whole, on a line of its own where the lane is narrow ("✗" / "NodeAffinity" at 1280 pixels).
    const below = REASON_LINE * (fitOrWrap(head, first, wide, 2, REASON_LINE) - 1);
    // The reason takes the lines the lane has room for (up to three), a word to a line where the lane is narrow:
    // "disktype NotIn [hdd]" whole in a six-lane map at 1280 pixels.
    const room = 1 + Math.floor((lane.y + lane.h - 8 - y - below - VERDICT_H + 12) / REASON_LINE);
    const lines = node.feasible ? [second] : wrapLines(group, "reason", second, wide, Math.min(Math.max(room, 1), 3));
    lines.forEach((line, i) => {
      const reason = el("text", { class: node.feasible ? "score" : "reason", x: lane.x + VERDICT_PAD,
        y: y + 52 + below + REASON_LINE * i, "dominant-baseline": "central" }, group);
      reason.textContent = line;
      fitText(reason, wide);
    });
    const height = VERDICT_H - 12 + below + REASON_LINE * (lines.length - 1);
    box.setAttribute("height", height);
    lane.verdictH = height + 12;
    el("title", {}, group).textContent = `${first} ${second}`;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Each score plugin adds its weighted points to every feasible lane's badge, one plugin at a time.
async function revealScores(instant = false) {
  if (!scoring) return;
  scoring.revealed = true;
  const nodes = (scoring.record.nodes || []).filter((n) => n.feasible && lanes.get(n.name));
  const plugins = nodes[0]?.scores.map((s) => s.plugin) ?? [];
  const totals = new Map(nodes.map((n) => [n.name, 0]));
  for (const plugin of plugins) {
    for (const node of nodes) {
      const score = node.scores.find((s) => s.plugin === plugin);
      totals.set(node.name, totals.get(node.name) + (score?.weighted ?? 0));
      const lane = lanes.get(node.name);
      const badge = lane.group.querySelector(".verdict .score");
      if (badge) {
        badge.textContent = `${text("total")} ${totals.get(node.name)}`;
        fitTotal(badge, lane.w - 2 * VERDICT_PAD);
      }
    }
    if (!instant) {
      document.getElementById("sub-why").textContent = `+ ${plugin}`;
      await sleep(MOVE_MS / 2);
    }
  }
  markWinner();
}

// The plugin whose weighted points made the difference between the winner and the runner-up.
function decider(nodes, selected) {
  const winner = nodes.find((n) => n.name === selected);
  const others = nodes.filter((n) => n.name !== selected).sort((a, b) => b.total - a.total);
  if (!winner || !others.length) return null;
  const points = (node, plugin) => node.scores.find((s) => s.plugin === plugin)?.weighted ?? 0;
  const best = winner.scores
    .map((s) => ({ plugin: s.plugin, gain: points(winner, s.plugin) - points(others[0], s.plugin) }))
    .sort((a, b) => b.gain - a.gain)[0];
  return best && best.gain > 0 ? { ...best, over: others[0].name } : null;
}

function markWinner() {
  const selected = scoring?.record.selected;
  if (!selected) return;
  const nodes = (scoring.record.nodes || []).filter((n) => n.feasible);
  const winner = nodes.find((n) => n.name === selected);
  const decided = decider(nodes, selected);
  if (winner && scoring.revealed !== "told" && story.beats[view]?.label === "9") {
    document.getElementById("sub-why").textContent = `★ ${selected} ${winner.total}` +
      (decided ? ` · ${text("decided")} ${decided.plugin} (+${decided.gain} / ${decided.over})` : "");
    scoring.revealed = "told";
  }
  for (const [name, lane] of lanes) {
    lane.group.classList.toggle("winner", name === selected);
    lane.group.classList.toggle("loser", name !== selected);
  }
  const lane = lanes.get(selected);
  const badge = lane?.group.querySelector(".verdict .score");
  if (badge && !badge.textContent.includes("★")) {
    badge.textContent = `★ ${badge.textContent}`;
    fitTotal(badge, lane.w - 2 * VERDICT_PAD);
  }
}

// A lane too narrow for "★ total 799" (six nodes at 1280 pixels) keeps the number and drops the word.
function fitTotal(badge, room) {
  if (badge.getComputedTextLength() > room) badge.textContent = badge.textContent.replace(`${text("total")} `, "");
}

// --- the websocket and the controls ----------------------------------------------------------

let refresh = null;

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${data.socket}`);
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.state) {
      state = frame.state;
      drawState();
    }
    if (frame.simulation) {
      const { spec, status } = frame.simulation;
      clock = { wall: Date.parse(status.wall), at: performance.now(), speed: spec.speed, live: spec.mode === "live" };
      document.querySelectorAll(".modes button").forEach((b) => b.classList.toggle("on", b.dataset.mode === spec.mode));
      // While the class waits in step mode, what the simulation will do next and when.
      const due = frame.due && spec.mode !== "live" ? `${text("next")} ${frame.due.what} · t = ${Number(frame.due.time).toFixed(1)} s` : "";
      document.getElementById("due").textContent = due;
    }
    if (frame.flows && clock.live) {
      clearTimeout(refresh);
      refresh = setTimeout(async () => absorb(await (await fetch(data.story)).json()), 250);
    }
  });
  socket.addEventListener("close", () => setTimeout(connect, 1000));
}

document.getElementById("next").addEventListener("click", next);
document.getElementById("back").addEventListener("click", back);
document.querySelectorAll(".modes button").forEach((button) =>
  button.addEventListener("click", () => post(data.mode, { mode: button.dataset.mode })),
);
svg.addEventListener("click", async (event) => {
  const chip = event.target.closest(".chip");
  if (!chip) return;
  clearScoring();
  absorb(await post(data.follow, { pod: chip.dataset.pod }));
});

const overlay = document.getElementById("overlay");
const consoleOverlay = document.getElementById("console-overlay");
document.getElementById("open-console").addEventListener("click", () => consoleOverlay.showModal());
document.getElementById("open-scoring").addEventListener("click", () => {
  const ns = story.beats.at(-1)?.messages[0]?.object.namespace || "default";
  htmx.ajax("GET", `${data.scoring}${ns}/${story.pod}`, { target: "#overlay-body", swap: "innerHTML" });
  overlay.showModal();
});

document.addEventListener("keydown", (event) => {
  if (overlay.open || consoleOverlay.open || event.target.closest?.("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
  if (["ArrowRight", "PageDown", " "].includes(event.key)) next();
  else if (["ArrowLeft", "PageUp"].includes(event.key)) back();
  else return;
  event.preventDefault();
});

new ResizeObserver(() => layout()).observe(svg);
layout();
connect();
fetch(data.story).then((r) => r.json()).then((payload) => {
  story = payload;
  played = story.beats.length;
  if (played) play(played - 1);
  showProgress();
});
