// MathJax 3 reads this object when it starts (the next script the page loads). The
// chapters write formulas as \\( ... \\) and \\[ ... \\] in markdown, which reach the page
// as \( ... \) and \[ ... \]. The SVG output needs no font files, so the built book renders
// its formulas without a network connection.
window.MathJax = {
  tex: {
    inlineMath: [['\\(', '\\)']],
    displayMath: [['\\[', '\\]']],
  },
  svg: {
    fontCache: 'global',
  },
};
