// Measures, once the page has settled (fonts loaded, MathJax typeset), every code block,
// table and displayed formula of the page's main text that is wider than the column it sits
// in, and writes one line per offender into a `pre` element of id layout-report, which
// `chromium --dump-dom` prints. Inserted into a copy of each page by tests/book.rs.
(function () {
    function describe(el) {
        var text = (el.innerText || el.textContent || "").trim().split("\n")[0].replace(/\t/g, " | ");
        return text.length > 70 ? text.slice(0, 70) + "…" : text;
    }
    function check() {
        var lines = [];
        var main = document.querySelector("main");
        if (!main) { lines.push("no <main> element"); }
        var right = main ? main.getBoundingClientRect().right : window.innerWidth;
        var seen = [];
        function report(kind, el, wide, room) {
            for (var i = 0; i < seen.length; i++) { if (seen[i] === el) return; }
            seen.push(el);
            lines.push("OVERFLOW\t" + kind + "\t" + Math.round(wide) + "\t" + Math.round(room) +
                "\t" + describe(el));
        }
        if (main) {
            main.querySelectorAll("pre").forEach(function (pre) {
                var code = pre.querySelector("code") || pre;
                [code, pre].forEach(function (el) {
                    if (el.scrollWidth > el.clientWidth + 1) {
                        report("code block", pre, el.scrollWidth, el.clientWidth);
                    }
                });
                var r = pre.getBoundingClientRect().right;
                if (r > right + 1) report("code block", pre, r, right);
            });
            main.querySelectorAll("table").forEach(function (table) {
                var box = table.parentElement;
                var wide = table.getBoundingClientRect().width;
                if (box && box.scrollWidth > box.clientWidth + 1) {
                    report("table", table, box.scrollWidth, box.clientWidth);
                } else if (table.getBoundingClientRect().right > right + 1) {
                    report("table", table, table.getBoundingClientRect().right, right);
                } else if (box && wide > box.clientWidth + 1) {
                    report("table", table, wide, box.clientWidth);
                }
            });
            main.querySelectorAll("mjx-container[display]").forEach(function (m) {
                if (m.scrollWidth > m.clientWidth + 1 || m.getBoundingClientRect().right > right + 1) {
                    report("formula", m, m.scrollWidth, m.clientWidth);
                }
            });
            main.querySelectorAll("mjx-merror, mjx-container [data-mjx-error]").forEach(function (m) {
                lines.push("MATH ERROR\t" + describe(m));
            });
        }
        if (document.documentElement.scrollWidth > window.innerWidth + 1) {
            lines.push("PAGE\tthe page scrolls sideways: " + document.documentElement.scrollWidth +
                " px wide in a " + window.innerWidth + " px window");
        }
        var out = document.createElement("pre");
        out.id = "layout-report";
        out.textContent = "LAYOUT-REPORT " + window.innerWidth + "\n" + lines.join("\n") + "\nEND\n";
        document.body.appendChild(out);
    }
    function settle() {
        var fonts = document.fonts ? document.fonts.ready : Promise.resolve();
        var math = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
        Promise.all([fonts, math]).then(function () { setTimeout(check, 50); }, function (e) {
            setTimeout(check, 50);
        });
    }
    if (document.readyState === "complete") settle();
    else window.addEventListener("load", settle);
})();
