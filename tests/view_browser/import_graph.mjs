// The web/ modules' import graph, read from their import statements (static
// `import ... from './x.js'` and `export ... from`), and the cycles in it.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// file name -> the web/ files it imports.
export function importGraph(dir) {
  const graph = new Map();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(join(dir, name), 'utf8');
    const targets = new Set();
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]\.\/([\w.-]+)['"]/gms))
      targets.add(m[1]);
    for (const m of text.matchAll(/^\s*import\s+['"]\.\/([\w.-]+)['"]/gm)) targets.add(m[1]);
    graph.set(name, [...targets].sort());
  }
  return graph;
}

// Every cycle as a path [a, b, ..., a] (each found once, from its first
// module in name order); [] when the graph is acyclic.
export function cycles(graph) {
  const found = [];
  const state = new Map(); // name -> 'active' | 'done'
  const stack = [];
  const visit = (name) => {
    state.set(name, 'active');
    stack.push(name);
    for (const next of graph.get(name) || []) {
      if (state.get(next) === 'active') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of [...graph.keys()].sort()) if (!state.has(name)) visit(name);
  return found;
}
