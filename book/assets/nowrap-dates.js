// Dates, times and run ids (2026-11-22, 2026-11-22T09:44:00Z-h100-a) never break across
// lines: each one in the text, inline code included, is wrapped in <span class="nowrap">.
// Code blocks (pre) are left alone.
(function () {
    var pattern = /\d{4}-\d{2}-\d{2}(?:T[0-9:]+Z(?:-[A-Za-z0-9]+)*)?/g;
    function wrap(root) {
        var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
            acceptNode: function (node) {
                for (var p = node.parentNode; p && p !== root; p = p.parentNode) {
                    var tag = p.nodeName;
                    if (tag === "PRE" || tag === "SCRIPT" || tag === "STYLE" ||
                        (p.classList && p.classList.contains("nowrap"))) {
                        return NodeFilter.FILTER_REJECT;
                    }
                }
                pattern.lastIndex = 0;
                return pattern.test(node.nodeValue) ? NodeFilter.FILTER_ACCEPT
                    : NodeFilter.FILTER_SKIP;
            }
        });
        var nodes = [];
        while (walker.nextNode()) nodes.push(walker.currentNode);
        nodes.forEach(function (node) {
            var text = node.nodeValue, last = 0, frag = document.createDocumentFragment(), m;
            pattern.lastIndex = 0;
            while ((m = pattern.exec(text)) !== null) {
                frag.appendChild(document.createTextNode(text.slice(last, m.index)));
                var span = document.createElement("span");
                span.className = "nowrap";
                span.textContent = m[0];
                frag.appendChild(span);
                last = m.index + m[0].length;
            }
            frag.appendChild(document.createTextNode(text.slice(last)));
            node.parentNode.replaceChild(frag, node);
        });
    }
    function run() {
        var main = document.querySelector("main");
        if (main) wrap(main);
    }
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
    else run();
})();
