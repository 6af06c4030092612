// Small helpers shared by the page's modules.

// el('div', {class: 'x', onclick: f}, child, 'text'...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// Nanoseconds as a short human duration: "850 ns", "12.4 µs", "3.20 ms", "1.50 s".
export function fmtNs(ns) {
  if (ns === null || ns === undefined) return '—';
  const v = Number(ns);
  if (v < 1e3) return `${v} ns`;
  if (v < 1e6) return `${(v / 1e3).toFixed(v < 1e4 ? 2 : 1)} µs`;
  if (v < 1e9) return `${(v / 1e6).toFixed(v < 1e7 ? 2 : 1)} ms`;
  return `${(v / 1e9).toFixed(2)} s`;
}

// 1234 -> "1234", 56789 -> "56.8k", 1234567 -> "1.23M"
export function fmtCount(n) {
  if (n < 10000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(1)}k`;
  return `${(n / 1e6).toFixed(2)}M`;
}

// A value of a table: integers as they are, floats to 6 significant digits
// without trailing zeros ("0.25", "1.33333", "1e-7").
export function fmtNumber(v) {
  if (typeof v !== 'number' || Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  const s = v.toPrecision(6);
  return s.includes('e') ? s.replace(/\.?0+e/, 'e') : s.replace(/\.?0+$/, '');
}

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}

// A message box in place of content: kind 'loading', 'error' or 'empty'.
export function note(kind, text) {
  return el('div', { class: `note ${kind}` }, text);
}

// Runs fn at most once per animation frame.
export function throttleFrame(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}

// Does a regex compile? Returns the error text or null.
export function regexError(src) {
  try {
    new RegExp(src);
    return null;
  } catch (e) {
    return e.message;
  }
}

export function download(name, text) {
  const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/plain' })), download: name });
  document.body.append(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}
