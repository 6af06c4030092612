"""The append-only function id registry (spec/function_ids.txt).

Ids are what a trace stores, so an id, once given, never changes meaning.
Functions the registry does not know yet (a newer gl.xml) get provisional ids
after the highest registered one and a warning; `gen.py --update-ids` appends
them for good."""

import sys


def read(path):
    ids = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            num, name = line.split()
            num = int(num)
            if name in ids or num in ids.values() or num <= 0:
                sys.exit(f"{path}:{lineno}: duplicate or invalid id entry '{line}'")
            ids[name] = num
    return ids


def assign(functions, registry, path, update):
    """Gives each function its id; appends new ones to the registry if update."""
    next_id = max(registry.values(), default=0) + 1
    new = []
    for f in functions:
        if f.name in registry:
            f.id = registry[f.name]
        else:
            f.id = next_id
            next_id += 1
            new.append(f)
    if new and update:
        with open(path, "a", encoding="utf-8") as out:
            for f in new:
                out.write(f"{f.id} {f.name}\n")
    elif new:
        print(f"gltrace codegen: warning: {len(new)} functions are not in {path} and get "
              f"provisional ids (first: {new[0].name}); run codegen/gen.py --update-ids",
              file=sys.stderr)
    return next_id  # table size: ids are < next_id
