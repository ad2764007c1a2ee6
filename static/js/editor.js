// The YAML editor: CodeMirror on the form's textarea; errors from the server are marked at their line.
const area = document.getElementById("yaml");
if (area && window.CodeMirror) {
  const editor = window.CodeMirror.fromTextArea(area, { mode: "yaml", lineNumbers: true, tabSize: 2, indentWithTabs: false });
  editor.setSize(null, 280);
  window.clusterviz = Object.assign(window.clusterviz || {}, { editor });
  // Projector mode changes the type size: CodeMirror measures its lines again.
  document.addEventListener("clusterviz:projector", () => editor.refresh());
  let marked = [];

  document.body.addEventListener("htmx:configRequest", (event) => {
    if (event.detail.elt.closest("#yaml-form")) event.detail.parameters.yaml = editor.getValue();
  });
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target.id !== "yaml-result") return;
    marked.forEach((line) => editor.removeLineClass(line, "background", "error-line"));
    marked = [];
    event.detail.target.querySelectorAll("[data-line]").forEach((item) => {
      const line = Number(item.dataset.line) - 1;
      editor.addLineClass(line, "background", "error-line");
      marked.push(line);
    });
    if (marked.length) editor.scrollIntoView({ line: marked[0], ch: 0 }, 40);
  });
}

// A loaded lesson brings its manifest into the editor.
document.body.addEventListener("loadPreset", (event) => {
  const editor = window.clusterviz?.editor;
  if (editor && event.detail?.yaml) editor.setValue(event.detail.yaml);
});
