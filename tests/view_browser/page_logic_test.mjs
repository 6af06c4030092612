// The page's pure logic, in node (no browser): the buffer viewer's element
// formats and decoding, the GL state pane's flattening and change matching
// and its header, the number formats every table uses, and the shape of the
// web/ modules (an import graph without cycles, app.js's one state object).
//
//   node --test tests/view_browser/page_logic_test.mjs

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importGraph, cycles } from './import_graph.mjs';
import { parseFormat, decodeElements, formatSize, glTypeFormat } from '../../web/buffer.js';
import { flatten, replayedFrom } from '../../web/state.js';
import { fmtNumber, fmtNs, fmtCount } from '../../web/util.js';
import { CallSource } from '../../web/calls.js';

test('element formats parse, and bad ones say what is accepted', () => {
  assert.deepEqual(parseFormat('3f 2f 4ub'), [
    { type: 'f', count: 3 },
    { type: 'f', count: 2 },
    { type: 'ub', count: 4 },
  ]);
  assert.equal(parseFormat(' hex '), 'hex');
  assert.equal(formatSize(parseFormat('3f,2h,us')), 12 + 4 + 2);
  assert.throws(() => parseFormat('3q'), /bad element format "3q": use e\.g\./);
  assert.throws(() => parseFormat('  '), /empty element format/);
  assert.equal(glTypeFormat('GL_UNSIGNED_SHORT'), 'us');
  assert.equal(glTypeFormat('GL_HALF_FLOAT'), 'h');
});

test('elements decode little-endian at a stride, whole elements only', () => {
  const bytes = new Uint8Array(26);
  const v = new DataView(bytes.buffer);
  // element 0: float 1.5, ushort 65535, half 1.0; element 1 at stride 12
  v.setFloat32(0, 1.5, true);
  v.setUint16(4, 65535, true);
  v.setUint16(6, 0x3c00, true);
  v.setFloat32(12, -2, true);
  v.setUint16(16, 7, true);
  v.setUint16(18, 0xc000, true); // half -2
  const rows = decodeElements(bytes, parseFormat('f us h'), 12);
  assert.deepEqual(rows, [
    [1.5, 65535, 1],
    [-2, 7, -2],
  ]); // 24 + 8 > 26: no third element
  assert.deepEqual(decodeElements(bytes.subarray(0, 4), parseFormat('4ub'), 4), [[0, 0, 0xc0, 0x3f]]);
  // half: subnormal, infinity, NaN
  const h = new Uint8Array(6);
  const hv = new DataView(h.buffer);
  hv.setUint16(0, 0x0001, true);
  hv.setUint16(2, 0x7c00, true);
  hv.setUint16(4, 0x7e00, true);
  const [[sub, inf, nan]] = decodeElements(h, parseFormat('3h'), 6);
  assert.equal(sub, 2 ** -24);
  assert.equal(inf, Infinity);
  assert.ok(Number.isNaN(nan));
});

test('state flattens to named rows, objects by their trace names', () => {
  const flat = flatten({
    bindings: { current_program: { name: 3 }, array_buffer: null },
    pipeline: { viewport: [0, 0, 320, 240], blend: false },
    program: { uniforms: [{ name: 'mvp', location: 0, value: [1, 0.1] }] },
    textures: [{ unit: 1, target: 'GL_TEXTURE_2D', texture: { name: 5 }, width: 64 }],
  });
  assert.equal(flat.get('bindings.current_program').shown, '3');
  assert.equal(flat.get('bindings.array_buffer').shown, 'null');
  assert.equal(flat.get('pipeline.viewport').shown, '[0, 0, 320, 240]');
  assert.equal(flat.get('program.uniforms[mvp].value').shown, '[1, 0.1]');
  assert.equal(flat.get('textures[unit 1 GL_TEXTURE_2D].width').shown, '64');
});

test('a change is found on exact values and on the same named object', () => {
  const before = flatten({ program: { uniforms: [{ name: 'a', value: [0.1234567] }, { name: 'b', value: [1] }] } });
  // the array's order changed, and a changes past the 6 digits shown
  const after = flatten({ program: { uniforms: [{ name: 'b', value: [1] }, { name: 'a', value: [0.1234568] }] } });
  const changed = [...after].filter(([path, v]) => before.get(path)?.raw !== v.raw).map(([path]) => path);
  assert.deepEqual(changed, ['program.uniforms[a].value']);
  assert.equal(after.get('program.uniforms[a].value').shown, before.get('program.uniforms[a].value').shown);
});

test('the state header says what the replay went on from', () => {
  assert.equal(replayedFrom({ replayed: 164, from: 11805, checkpoint: true }),
    ': 164 calls from the frame start, call 11805');
  assert.equal(replayedFrom({ replayed: 3, from: 11976, checkpoint: false }), ': 3 calls from call 11976');
  assert.equal(replayedFrom({ replayed: 11979, from: null, checkpoint: false }),
    ": 11979 calls from the trace's start");
  assert.equal(replayedFrom({ replayed: 0, from: 5, checkpoint: false }), '');
});

test('numbers print short and exact enough', () => {
  assert.equal(fmtNumber(0.25), '0.25');
  assert.equal(fmtNumber(1 / 3), '0.333333');
  assert.equal(fmtNumber(1e-7), '1e-7');
  assert.equal(fmtNumber(-2.5e10), '-25000000000');
  assert.equal(fmtNs(850), '850 ns');
  assert.equal(fmtNs(12400), '12.4 µs');
  assert.equal(fmtNs(3.2e6), '3.20 ms');
  assert.equal(fmtNs(null), '—');
  assert.equal(fmtCount(1234567), '1.23M');
});

test("a snapshot's calls are one group under a heading row, folded at first", () => {
  let changes = 0;
  const source = new CallSource(() => changes++, () => {});
  // as reopen() leaves a frame 0 of 10 calls whose first 4 are the snapshot's
  source.query = { frame: 0, filter: null, thread: null, context: null, snapshot: { calls: 4, inexact: 1 } };
  source.total = 10;
  source.snapshot = 4;
  source.folds = [[0, 3]];
  assert.ok(source.snapshotFolded());
  assert.equal(source.count(), 7); // the heading and calls 4..9
  assert.equal(source.rowToIndex(0), -1);
  assert.equal(source.rowToIndex(1), 4);
  assert.equal(source.indexToRow(2), 0); // a folded snapshot call: its heading
  assert.equal(source.indexToRow(5), 2);
  source.toggleSnapshot();
  assert.ok(!source.snapshotFolded() && changes === 1);
  assert.equal(source.count(), 11);
  assert.deepEqual([0, 1, 5, 10].map((r) => source.rowToIndex(r)), [-1, 0, 4, 9]);
  assert.equal(source.indexToRow(9), 10);
  source.toggleSnapshot();
  assert.ok(source.snapshotFolded());
  assert.equal(source.count(), 7);
});

const webDir = fileURLToPath(new URL('../../web/', import.meta.url));

test('the web modules import each other without a cycle', () => {
  const graph = importGraph(webDir);
  assert.ok(graph.get('app.js').includes('details.js'), 'the graph is read (app.js imports details.js)');
  assert.deepEqual(cycles(graph), []);
  // The check finds cycles: two modules importing each other, and a longer loop.
  assert.deepEqual(cycles(new Map([['a.js', ['b.js']], ['b.js', ['a.js']]])), [['a.js', 'b.js', 'a.js']]);
  assert.deepEqual(
    cycles(new Map([['a.js', ['b.js']], ['b.js', ['c.js']], ['c.js', ['a.js']], ['d.js', ['a.js']]])),
    [['a.js', 'b.js', 'c.js', 'a.js']]);
});

test("app.js keeps the page's state in one object", () => {
  const text = readFileSync(`${webDir}/app.js`, 'utf8');
  const mutable = text.split('\n').filter((line) => /^(let|var)\s/.test(line));
  assert.deepEqual(mutable, [], 'module-level let/var in app.js');
});
