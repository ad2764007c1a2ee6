// Animates delivered bus messages as numbered tokens between the boxes of the flow diagram.
// It only draws what the server says was delivered; it never invents a hop.
const svg = document.getElementById("flow");
const tokens = document.getElementById("tokens");
const caption = document.getElementById("caption");

function centre(component) {
  const name = component.split("/")[0];
  const box = svg?.querySelector(`[data-component="${name === "client" || name === "dashboard" ? "kubectl" : name}"] rect`);
  if (!box) return null;
  return { x: +box.getAttribute("x") + +box.getAttribute("width") / 2, y: +box.getAttribute("y") + +box.getAttribute("height") / 2 };
}

function animate(message) {
  const from = centre(message.from);
  const to = centre(message.to);
  caption.textContent = `${message.step ? "(" + message.step + ") " : ""}${message.summary}`;
  if (!from || !to) return;
  const token = document.createElementNS("http://www.w3.org/2000/svg", "g");
  token.setAttribute("class", "token");
  token.innerHTML = `<circle r="16"></circle><text dy="5">${message.step ?? "•"}</text>`;
  token.style.transform = `translate(${from.x}px, ${from.y}px)`;
  tokens.appendChild(token);
  requestAnimationFrame(() => {
    token.style.transform = `translate(${to.x}px, ${to.y}px)`;
  });
  setTimeout(() => token.remove(), 900);
}

document.body.addEventListener("htmx:wsAfterMessage", (event) => {
  const text = event.detail.message;
  if (typeof text !== "string" || !text.startsWith("{")) return;
  const data = JSON.parse(text);
  if (data.flow) animate(data.flow);
});

document.addEventListener("keydown", (event) => {
  if (event.code === "Space" && event.target === document.body) {
    event.preventDefault();
    document.getElementById("step")?.click();
  }
});
