// Drawing helpers shared by the cluster page's flow diagram and the presenter's map.
const NS = "http://www.w3.org/2000/svg";

// An SVG element with its attributes, appended to ``parent`` when one is given.
export function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent?.appendChild(node);
  return node;
}

// The point a fraction ``t`` of the way along a polyline (a token's place on its arrow).
export function pointAt(points, t) {
  const lengths = points.slice(1).map((p, i) => Math.hypot(p[0] - points[i][0], p[1] - points[i][1]));
  let left = t * lengths.reduce((a, b) => a + b, 0);
  for (let i = 0; i < lengths.length; i++) {
    if (left <= lengths[i] || i === lengths.length - 1) {
      const f = lengths[i] ? Math.min(1, left / lengths[i]) : 1;
      return [points[i][0] + f * (points[i + 1][0] - points[i][0]), points[i][1] + f * (points[i + 1][1] - points[i][1])];
    }
    left -= lengths[i];
  }
  return points[points.length - 1];
}
