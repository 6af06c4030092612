#!/usr/bin/env python3
"""gltrace code generator entry point (Python 3 standard library only).

  gen.py --gl-xml gl.xml --egl-header egl.h --egl-header eglext.h \
         --ids spec/function_ids.txt --api-table spec/api.toml --out DIR [--update-ids]
  gen.py --proto proto/trace.proto --namespace gltrace::schema --header OUT.h \
         [--decoders DECODERS.h] [--encoders ENCODERS.h] [--schema-include format/schema.h]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gltrace_codegen import (  # noqa: E402
    api, decoders, emit, encoders, ids, proto, registry, replay, report, state, trace, validate)


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

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gl-xml")
    ap.add_argument("--egl-header", action="append")
    ap.add_argument("--ids")
    ap.add_argument("--out")
    ap.add_argument("--update-ids", action="store_true")
    ap.add_argument("--api-table", help="spec/api.toml: what each function and parameter means")
    ap.add_argument("--state-table", help="spec/gles_state.json: the state worker's table")
    ap.add_argument("--uncaptured-report",
                    help="write the pointers a trace cannot capture (docs/uncaptured.md) here")
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
    if not (args.gl_xml and args.egl_header and args.ids and args.out and args.api_table):
        ap.error("--gl-xml, --egl-header, --ids, --api-table and --out are required (or --proto)")

    typedefs, gl_functions = registry.read_gl(args.gl_xml)
    egl_functions = registry.read_egl(args.egl_header)
    functions = egl_functions + gl_functions
    try:
        table = api.read(args.api_table)
        api.load(functions, table, registry.read_gl.enums)
    except api.ApiError as e:
        sys.exit(f"gltrace codegen: {args.api_table}: {e}")
    registered = ids.read(args.ids) if os.path.exists(args.ids) else {}
    limit = ids.assign(functions, registered, args.ids, args.update_ids)
    if limit > 65535:
        sys.exit("gltrace codegen: ids must fit in 16 bits")

    out = args.out
    api_dir = os.path.join(out, "gltrace", "api")
    write_if_changed(os.path.join(api_dir, "types.h"), emit.types_h(typedefs))
    write_if_changed(os.path.join(api_dir, "limits.h"), emit.limits_h(limit))
    write_if_changed(os.path.join(api_dir, "functions.h"), emit.functions_h(functions, limit))
    write_if_changed(os.path.join(api_dir, "pfn.h"), emit.pfn_h(functions))
    write_if_changed(os.path.join(out, "functions.cpp"), emit.functions_cpp(functions, limit))
    write_if_changed(os.path.join(out, "enums.cpp"), emit.enums_cpp(registry.read_gl.enums,
                                   registry.read_egl_enums(args.egl_header)))
    write_if_changed(os.path.join(api_dir, "enums.h"), emit.enums_h())
    if args.state_table:
        try:
            entries, uniform_types = state.read(args.state_table, registry.read_gl.enums,
                                                registry.read_egl_enums(args.egl_header))
        except state.StateError as e:
            sys.exit(f"gltrace codegen: {e}")
        write_if_changed(os.path.join(api_dir, "state_table.inc"),
                         state.state_table_inc(entries, uniform_types, emit.HEADER))
    write_if_changed(os.path.join(out, "entry_points.cpp"),
                     emit.entry_points_cpp(functions))
    write_if_changed(os.path.join(out, "dispatch_stubs.cpp"),
                     emit.dispatch_stubs_cpp(functions, limit))
    write_if_changed(os.path.join(api_dir, "layer_wrappers.inc"), emit.layer_wrappers_inc(functions))
    wrappers, decls = trace.trace_wrappers_inc(functions)
    write_if_changed(os.path.join(api_dir, "trace_wrappers.inc"), wrappers)
    write_if_changed(os.path.join(api_dir, "trace_decls.h"), decls)
    replay_calls, replay_decls = replay.replay_calls_inc(functions, table["classes"])
    write_if_changed(os.path.join(api_dir, "replay_calls.inc"), replay_calls)
    write_if_changed(os.path.join(api_dir, "replay_decls.h"), replay_decls)
    if args.uncaptured_report:
        write_if_changed(args.uncaptured_report, report.uncaptured_md(functions))
    write_if_changed(os.path.join(api_dir, "validate_rules.inc"),
                     validate.validate_rules_inc(functions, emit.HEADER))
    print(f"gltrace codegen: {len(egl_functions)} EGL + {len(gl_functions)} GLES functions, "
          f"id limit {limit}")


if __name__ == "__main__":
    main()
