// What the replay holds at a call, as the state worker reads it: the GL
// state (cached per call), how its values read, a buffer's bytes and a
// texture read back. Shared by the call details and the state pane, which
// import it and not each other.

import { getJson, getBytes, url } from './api.js';
import { el, fmtNumber } from './util.js';
import { imageBox } from './images.js';

const cache = new Map(); // call -> promise of the /api/state reply

// The state after call call (one worker round trip per call, then cached).
export function loadState(call) {
  if (!cache.has(call)) {
    const p = getJson('/api/state', { call });
    p.catch(() => cache.delete(call));
    cache.set(call, p);
    if (cache.size > 64) cache.delete(cache.keys().next().value);
  }
  return cache.get(call);
}

// An object reference {"name": N} (the trace's object names).
export function isObjectRef(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'name' in v;
}

export function showValue(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return fmtNumber(v);
  if (isObjectRef(v)) return v.name === 0 ? '0 (none)' : String(v.name);
  if (Array.isArray(v)) return `[${v.map(showValue).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${showValue(x)}`).join(', ')}}`;
  return String(v);
}

// A replayed buffer's bytes from offset, at most size of them: a request past
// the buffer's end is refused with its size, and asked again up to there.
export async function replayBufferBytes(call, name, offset, size, signal) {
  try {
    return await getBytes('/api/state/buffer', { call, name, offset, size }, signal);
  } catch (e) {
    const m = /buffer's (\d+) bytes/.exec(e.message || '');
    if (!m || Number(m[1]) <= offset) throw e;
    return getBytes('/api/state/buffer', { call, name, offset, size: Number(m[1]) - offset }, signal);
  }
}

// A texture read back from the replay at call call, with level/face/layer
// pickers (every level, cube face and array layer can be looked at).
export function replayTexture(call, tex) {
  const name = isObjectRef(tex.texture) ? tex.texture.name : tex.texture;
  const root = el('div', { class: 'replay-texture' });
  const level = el('input', { type: 'number', min: '0', value: '0', class: 'num', title: 'mip level' });
  const layer = el('input', { type: 'number', min: '0', value: '0', class: 'num', title: 'array layer / 3D slice' });
  const face = el('select', { title: 'cube face' }, ['+X', '-X', '+Y', '-Y', '+Z', '-Z'].map((f, i) => el('option', { value: i }, f)));
  const cube = /CUBE/.test(tex.target);
  const layered = /ARRAY|3D/.test(tex.target);
  const holder = el('div');
  const show = () =>
    holder.replaceChildren(
      imageBox(
        url('/api/state/texture', { call, name, target: tex.target, level: level.value, layer: layer.value, face: face.value }),
        { caption: `texture ${name} (${tex.target}${tex.internal_format ? ', ' + tex.internal_format : ''}) level ${level.value}`, className: 'texture-image' },
      ),
    );
  level.addEventListener('change', show);
  layer.addEventListener('change', show);
  face.addEventListener('change', show);
  root.append(
    el('div', { class: 'buffer-bar' }, `unit ${tex.unit} · texture ${name} · `, 'level ', level,
      cube ? [' face ', face] : null, layered ? [' layer ', layer] : null),
    holder,
  );
  show();
  return root;
}
