#!/usr/bin/env python3
"""gltrace code generator entry point (Python 3 standard library only).

  gen.py --gl-xml gl.xml [--glx-xml glx.xml] --egl-header egl.h --egl-header eglext.h \
         --ids spec/function_ids.txt --api-table spec/api.toml --out DIR [--update-ids]
  gen.py --proto proto/trace.proto --namespace gltrace::schema --header OUT.h \
         [--decoders DECODERS.h] [--encoders ENCODERS.h] [--schema-include format/schema.h]
  gen.py --explain FUNCTION   what the table and the registry say of FUNCTION,
                              and what is generated from it
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gltrace_codegen import (  # noqa: E402
    api, decoders, emit, encoders, explain, ids, profiles, proto, registry, replay, report,
    requirements,
    roles, state, trace, validate)


def write_if_changed(path, text):
    """Keeps timestamps of unchanged outputs so the build does not recompile them."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generate_schema(proto_path, namespace, header, decoders_header=None, schema_include=None,
                    encoders_header=None):
    try:
        parsed = proto.read(proto_path)
    except proto.ProtoError as e:
        sys.exit(f"gltrace codegen: {e}")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source_name = os.path.relpath(os.path.abspath(proto_path), root)
    if source_name.startswith(".."):
        source_name = os.path.basename(proto_path)
    write_if_changed(header, proto.schema_h(parsed, namespace, source_name))
    for path, writer in ((decoders_header, decoders.decoders_h),
                         (encoders_header, encoders.encoders_h)):
        if not path:
            continue
        try:
            text = writer(parsed, namespace, schema_include, source_name)
        except proto.ProtoError as e:
            sys.exit(f"gltrace codegen: {e}")
        write_if_changed(path, text)


def generate(functions, typedefs, limit, table, args):
    """{path under --out (or the report's path): text} of every generated file."""
    api_dir = os.path.join("gltrace", "api")
    gl_enums = registry.read_gl.enums
    egl_enums = registry.read_egl_enums(args.egl_header)
    out = {
        os.path.join(api_dir, "types.h"): emit.types_h(typedefs),
        os.path.join(api_dir, "limits.h"): emit.limits_h(limit),
        os.path.join(api_dir, "functions.h"): emit.functions_h(functions, limit),
        os.path.join(api_dir, "pfn.h"): emit.pfn_h(functions),
        os.path.join(api_dir, "roles.h"): roles.roles_h(functions, limit),
        os.path.join(api_dir, "requirements.h"): requirements.requirements_h(functions, limit),
        "functions.cpp": emit.functions_cpp(functions, limit),
        "enums.cpp": emit.enums_cpp(gl_enums, egl_enums),
        os.path.join(api_dir, "enums.h"): emit.enums_h(),
    }
    if args.state_table:
        try:
            entries, uniform_types, setters = state.read(args.state_table, gl_enums, egl_enums,
                                                         functions)
        except state.StateError as e:
            sys.exit(f"gltrace codegen: {e}")
        out[os.path.join(api_dir, "state_table.inc")] = state.state_table_inc(
            entries, uniform_types, setters, emit.HEADER)
    if args.profiles:
        try:
            listed, values = profiles.read(args.profiles, gl_enums)
        except (profiles.ProfileError, OSError) as e:
            sys.exit(f"gltrace codegen: {args.profiles}: {e}")
        out[os.path.join(api_dir, "profiles.h")] = profiles.profiles_h(listed, values)
    out["entry_points.cpp"] = emit.entry_points_cpp(functions)
    out["dispatch_stubs.cpp"] = emit.dispatch_stubs_cpp(functions, limit)
    out[os.path.join(api_dir, "layer_wrappers.inc")] = emit.layer_wrappers_inc(functions)
    wrappers, decls = trace.trace_wrappers_inc(functions, table["classes"])
    out[os.path.join(api_dir, "trace_wrappers.inc")] = wrappers
    out[os.path.join(api_dir, "trace_decls.h")] = decls
    replay_calls, replay_decls = replay.replay_calls_inc(functions, table["classes"])
    out[os.path.join(api_dir, "replay_calls.inc")] = replay_calls
    out[os.path.join(api_dir, "replay_decls.h")] = replay_decls
    if args.uncaptured_report:
        out[args.uncaptured_report] = report.uncaptured_md(functions)
    out[os.path.join(api_dir, "validate_rules.inc")] = validate.validate_rules_inc(
        functions, emit.HEADER)
    return out


# Inputs --explain reads when not given: the system's registry, this tree's table.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DEFAULTS = {"gl_xml": "/usr/share/khronos-api/gl.xml",
             "egl_header": ["/usr/include/EGL/egl.h", "/usr/include/EGL/eglext.h"],
             "ids": os.path.join(_ROOT, "spec", "function_ids.txt"),
             "api_table": os.path.join(_ROOT, "spec", "api.toml"),
             "state_table": os.path.join(_ROOT, "spec", "gles_state.json"),
             "profiles": os.path.join(_ROOT, "spec", "portable_profiles.toml")}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gl-xml")
    ap.add_argument("--egl-header", action="append")
    ap.add_argument("--glx-xml", help="glx.xml (default: beside --gl-xml)")
    ap.add_argument("--ids")
    ap.add_argument("--out")
    ap.add_argument("--update-ids", action="store_true")
    ap.add_argument("--api-table", help="spec/api.toml: what each function and parameter means")
    ap.add_argument("--state-table", help="spec/gles_state.json: the state worker's table")
    ap.add_argument("--profiles",
                    help="spec/portable_profiles.toml: what `gltrace trace --portable` shows")
    ap.add_argument("--uncaptured-report",
                    help="write the pointers a trace cannot capture (docs/uncaptured.md) here")
    ap.add_argument("--explain", metavar="FUNCTION",
                    help="print what the registry and spec/api.toml say of FUNCTION, merged, "
                         "and what is generated from it (inputs default to the system's "
                         "registry and this tree's spec/)")
    # A .proto's field numbers, on their own: the format and control libraries
    # build from them without the GL registry.
    ap.add_argument("--proto", help="a .proto file to write field-number constants for")
    ap.add_argument("--namespace", help="C++ namespace of those constants")
    ap.add_argument("--header", help="path of the header to write")
    ap.add_argument("--decoders", help="path of the header of the messages' decoders to write")
    ap.add_argument("--encoders", help="path of the header of the messages' encoders to write")
    ap.add_argument("--schema-include",
                    help="how the decoders and encoders headers include --header")
    args = ap.parse_args()
    if args.proto:
        if not args.namespace or not args.header:
            ap.error("--proto needs --namespace and --header")
        if args.decoders and not args.schema_include:
            ap.error("--decoders needs --schema-include")
        if args.encoders and not args.schema_include:
            ap.error("--encoders needs --schema-include")
        generate_schema(args.proto, args.namespace, args.header, args.decoders,
                        args.schema_include, args.encoders)
        return
    if args.explain:
        for key, value in _DEFAULTS.items():
            if getattr(args, key) is None:
                setattr(args, key, value)
    elif not (args.gl_xml and args.egl_header and args.ids and args.out and args.api_table):
        ap.error("--gl-xml, --egl-header, --ids, --api-table and --out are required (or --proto)")

    typedefs, gl_functions = registry.read_gl(args.gl_xml)
    egl_functions = registry.read_egl(args.egl_header)
    # GLX's registry sits beside gl.xml (Debian's khronos-api has both).
    glx_xml = args.glx_xml or os.path.join(os.path.dirname(args.gl_xml), "glx.xml")
    glx_functions = registry.read_glx(glx_xml)
    functions = egl_functions + gl_functions + glx_functions
    try:
        table = api.read(args.api_table)
        api.load(functions, table, registry.read_gl.enums)
    except api.ApiError as e:
        sys.exit(f"gltrace codegen: {args.api_table}: {e}")
    registered = ids.read(args.ids) if os.path.exists(args.ids) else {}
    limit = ids.assign(functions, registered, args.ids, args.update_ids and not args.explain)
    if limit > 65535:
        sys.exit("gltrace codegen: ids must fit in 16 bits")
    generated = generate(functions, typedefs, limit, table, args)
    if args.explain:
        f = next((f for f in functions if f.name == args.explain), None)
        if f is None:
            sys.exit(f"gltrace codegen: {args.explain} is no EGL or GLES function of the registry")
        print(explain.explain(f, table, generated), end="")
        return
    for path, text in generated.items():
        # Paths are under --out, but the report's, given whole.
        write_if_changed(path if path == args.uncaptured_report else os.path.join(args.out, path),
                         text)
    print(f"gltrace codegen: {len(egl_functions)} EGL + {len(gl_functions)} GL + "
          f"{len(glx_functions)} GLX functions, id limit {limit}")


if __name__ == "__main__":
    main()
