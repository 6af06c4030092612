// Details of one call: arguments (blobs open in the buffer viewer), shader
// source, the texture an upload carries, a draw's vertex attributes, and for
// draws what the replay knows: the program and its shader sources, the
// textures bound per unit, and the framebuffer after the draw.

import { getJson, getBytes, url, aborted } from './api.js';
import { el, note, fmtNs, fmtBytes, fmtNumber } from './util.js';
import { bufferViewer, glTypeFormat } from './buffer.js';
import { imageBox } from './images.js';
import { loadState, showValue, isObjectRef, replayBufferBytes, replayTexture } from './replay.js';

function section(title, ...content) {
  return el('section', { class: 'detail-section' }, el('h3', {}, title), ...content);
}

function kv(rows) {
  return el(
    'table',
    { class: 'kv' },
    rows.filter(([, v]) => v !== undefined).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v))),
  );
}

// Vertex attributes a draw reads, a page of rows at a time.
function vertexTable(call, tableUrl) {
  const root = el('div', { class: 'vertex-table' });
  const per = 100;
  let first = 0;
  const body = el('div');
  const pager = el('span', { class: 'pager' });
  const prev = el('button', { onclick: () => load(first - per) }, '◀');
  const next = el('button', { onclick: () => load(first + per) }, '▶');
  root.append(el('div', { class: 'buffer-bar' }, prev, pager, next), body);
  async function load(f) {
    first = Math.max(0, f);
    body.replaceChildren(note('loading', 'loading vertex attributes…'));
    try {
      const base = new URL(tableUrl, location.href);
      const params = Object.fromEntries(base.searchParams);
      const reply = await getJson(base.pathname, { ...params, call, first, count: per });
      const table = el('table', { class: 'buffer-table' });
      table.append(
        el('tr', {}, el('th', {}, '#'), reply.attributes.map((a) =>
          el('th', { title: `index ${a.index}, ${a.size} × ${a.type}` }, a.name || `attr ${a.index}`))),
      );
      reply.rows.forEach((row, r) =>
        table.append(el('tr', {}, el('td', { class: 'idx' }, first + r), row.map((v) =>
          el('td', {}, Array.isArray(v) ? v.map(fmtNumber).join(', ') : fmtNumber(v))))),
      );
      pager.textContent = ` vertices ${first}–${first + reply.rows.length - 1} of ${reply.total} `;
      prev.disabled = first === 0;
      next.disabled = first + per >= reply.total;
      body.replaceChildren(reply.rows.length ? table : note('empty', 'no vertices'));
    } catch (e) {
      if (e.status === 404 && first === 0) {
        // vertices in buffer objects: each enabled attribute's buffer as the
        // replay has it, in the attribute's format, offset and stride
        root.replaceChildren(note('muted', e.message), attributeBuffers(call));
      } else {
        body.replaceChildren(note('error', `vertex attributes: ${e.message}`));
      }
    }
  }
  load(0);
  return root;
}

function attributeBuffers(call) {
  const holder = el('div', { class: 'attribute-buffers' }, note('loading', 'replaying for the vertex attribute state…'));
  loadState(call)
    .then((reply) => {
      const attrs = ((reply.state || {}).vertex_arrays || []).filter((a) => a.enabled);
      const names = new Map((((reply.state || {}).program || {}).attributes || []).map((a) => [a.location, a.name]));
      holder.replaceChildren(
        ...(attrs.length ? attrs.map((a) => {
          const buffer = isObjectRef(a.buffer) ? a.buffer.name : a.buffer;
          if (!buffer) return note('empty', `attribute ${a.index}: no buffer (a client array the trace did not record)`);
          const title = `attribute ${a.index}${names.has(a.index) ? ` ${names.get(a.index)}` : ''}: buffer ${buffer}, ${a.size} × ${a.type}`;
          return el('details', { class: 'attribute' }, el('summary', {}, title), bufferViewer({
            total: null,
            initialFormat: `${a.size}${glTypeFormat(a.type)}`,
            offset: a.offset || 0,
            stride: a.stride || 0,
            fetch: (offset, size, signal) => replayBufferBytes(call, buffer, offset, size, signal),
          }));
        }) : [note('empty', 'no enabled vertex attribute')]),
      );
    })
    .catch((e) => holder.replaceChildren(note('error', `vertex attributes: ${e.message}`)));
  return holder;
}

// What the replay knows at a draw: program + shaders, textures, framebuffer.
async function drawState(call, into) {
  into.replaceChildren(note('loading', `replaying up to call ${call} for the draw's program, textures and framebuffer…`));
  let reply;
  try {
    reply = await loadState(call);
  } catch (e) {
    if (!aborted(e)) into.replaceChildren(note('error', `replay state unavailable: ${e.message}`));
    return;
  }
  const state = reply.state || {};
  const parts = [];
  const program = state.program;
  if (program && program.name) {
    const pname = isObjectRef(program.name) ? program.name.name : program.name;
    const shaders = el('div', { class: 'shaders' }, note('loading', 'loading shader sources…'));
    parts.push(
      section(`Program ${pname}`,
        kv([['link status', String(program.link_status)]]),
        shaders,
        program.uniforms && program.uniforms.length
          ? el('table', { class: 'kv uniforms' }, el('tr', {}, el('th', {}, 'uniform'), el('th', {}, 'type'), el('th', {}, 'value')),
            program.uniforms.map((u) => el('tr', {}, el('td', {}, `${u.name} (loc ${u.location})`), el('td', {}, u.type), el('td', {}, showValue(u.value)))))
          : null),
    );
    (async () => {
      try {
        const prog = await getJson('/api/state/shader', { call, name: pname });
        const blocks = [];
        if (prog.info_log) blocks.push(el('pre', { class: 'info-log' }, prog.info_log));
        for (const s of prog.shaders || []) {
          const sname = isObjectRef(s.name) ? s.name.name : s.name;
          const sh = await getJson('/api/state/shader', { call, name: sname });
          blocks.push(
            el('h4', {}, `${sh.type || s.type} ${sname}`, sh.compile_status === false ? el('span', { class: 'err-tag' }, 'compile failed') : ''),
            el('pre', { class: 'shader-source', dataset: { shader: sname, type: sh.type || s.type } }, sh.source || ''),
            sh.info_log ? el('pre', { class: 'info-log' }, sh.info_log) : '',
          );
        }
        shaders.replaceChildren(...(blocks.length ? blocks : [note('empty', 'no shaders attached')]));
      } catch (e) {
        shaders.replaceChildren(note('error', `shader sources: ${e.message}`));
      }
    })();
  } else {
    parts.push(section('Program', note('empty', 'no program in use')));
  }
  const textures = Array.isArray(state.textures) ? state.textures : [];
  parts.push(
    section(`Textures bound (${textures.length})`,
      textures.length ? textures.map((t) => replayTexture(call, t)) : note('empty', 'no texture bound')),
  );
  parts.push(section('Framebuffer after the draw (replay)', imageBox(url('/api/state/framebuffer', { call }), { caption: 'draw framebuffer', className: 'framebuffer-image' })));
  into.replaceChildren(...parts);
}

export class CallDetails {
  constructor(container) {
    this.root = el('div', { class: 'call-details' });
    container.append(this.root);
    this.call = null;
    this.root.append(note('empty', 'Select a call in the list (↑/↓ move, n/p: next/previous draw).'));
  }

  async show(call) {
    this.call = call;
    this.root.dataset.call = '';
    this.root.replaceChildren(note('loading', `loading call ${call}…`));
    let c;
    try {
      c = await getJson('/api/call', { call });
    } catch (e) {
      if (this.call === call && !aborted(e)) this.root.replaceChildren(note('error', `call ${call}: ${e.message}`));
      return;
    }
    if (this.call !== call) return;
    const parts = [];
    parts.push(
      el('h2', {}, el('span', { class: 'muted' }, `#${c.call} `), c.name,
        c.draw ? el('span', { class: 'badge draw' }, 'draw') : '',
        c.snapshot ? el('span', { class: 'badge snapshot', title: 'recreates state the app had when the capture began' }, 'snapshot') : '',
        c.error ? el('span', { class: 'err-tag' }, c.error) : ''),
      kv([
        ['frame', c.frame],
        ['position', c.pos],
        ['thread', c.thread],
        ['context', c.context],
        ['start', fmtNs(c.start_ns)],
        ['wall time', fmtNs(c.dur_ns)],
        ['thread time', fmtNs(c.thread_ns)],
        ['result', c.result ?? undefined],
        ['GL error', c.error ?? undefined],
      ]),
    );
    if (c.snapshot_inexact) {
      parts.push(section('Not exact in the snapshot', el('ul', { class: 'snapshot-inexact' }, c.snapshot_inexact.map((n) => el('li', {}, n)))));
    }
    const args = el('table', { class: 'args-table' }, el('tr', {}, el('th', {}, 'argument'), el('th', {}, 'type'), el('th', {}, 'value')));
    const blobHolder = el('div');
    for (const a of c.args || []) {
      const value = el('td', { class: 'arg-value' }, a.value);
      if (a.blob) {
        value.append(' ', el('button', {
          class: 'link',
          onclick: () => blobHolder.replaceChildren(bufferViewer({
            title: `${a.name} (${fmtBytes(a.blob.size)})`,
            total: a.blob.size,
            initialFormat: /float/i.test(a.type) ? 'float' : 'hex',
            fetch: (offset, size, signal) => getBytes('/api/blob', { id: a.blob.id, offset, size }, signal),
          })),
        }, `view ${fmtBytes(a.blob.size)}`));
      }
      args.append(el('tr', {}, el('td', {}, a.name), el('td', { class: 'muted' }, a.type), value));
    }
    parts.push(section('Arguments', args, blobHolder));
    if (c.shader_source !== undefined && c.shader_source !== null) {
      parts.push(section('Shader source', el('pre', { class: 'shader-source' }, c.shader_source)));
    }
    if (c.texture) {
      const t = c.texture;
      parts.push(section(`Texture upload: ${t.target} level ${t.level}, ${t.width}×${t.height}${t.depth > 1 ? '×' + t.depth : ''} ${t.format}/${t.type}`,
        imageBox(t.image, {
          caption: 'recorded upload',
          className: 'texture-image',
          onmissing: (e, box) => box.append(el('button', { onclick: () => this.readBackUpload(call, t, box) }, 'read it back from the replay')),
        })));
    }
    for (const img of c.images || []) {
      parts.push(section('Framebuffer captured after this call', imageBox(img, { caption: 'captured', className: 'captured-image' })));
    }
    if (c.draw) {
      // what it drew with first, its (long) vertex data last
      const holder = el('div', { class: 'draw-state' });
      parts.push(holder);
      drawState(call, holder);
      parts.push(section(`Vertices: ${c.draw.mode}, ${c.draw.count} vertices`, c.draw.vertex_table ? vertexTable(call, c.draw.vertex_table) : null));
    }
    this.root.replaceChildren(...parts);
    this.root.dataset.call = String(call);
  }

  // An upload the server cannot decode: the texture bound to its target on
  // the active unit, read back by the replay after the call.
  async readBackUpload(call, t, box) {
    box.replaceChildren(note('loading', 'replaying…'));
    try {
      const reply = await loadState(call);
      const s = reply.state || {};
      const unitName = s.bindings && s.bindings.active_texture;
      const unit = typeof unitName === 'string' ? Number(unitName.replace(/\D/g, '')) || 0 : Number(unitName) || 0;
      const target = t.target.startsWith('GL_TEXTURE_CUBE_MAP') ? 'GL_TEXTURE_CUBE_MAP' : t.target;
      const tex = (s.textures || []).find((x) => x.unit === unit && x.target === target);
      if (!tex) throw new Error(`no texture bound to ${target} on unit ${unit} after the call`);
      box.replaceChildren(replayTexture(call, tex));
    } catch (e) {
      box.replaceChildren(note('error', `read-back: ${e.message}`));
    }
  }
}
