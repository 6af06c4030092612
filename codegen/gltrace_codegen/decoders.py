"""Writes the decoders of a .proto's messages as a C++ header: one function template per
message, `decode_<snake_case name>(d, m, out)`, that walks the message's fields and stores
each one in the member of *out named like it (Perfetto's protozero and GFXReconstruct's
generated decoders do the same job; this one fills the caller's structs, which keep views
into the input, so decoding allocates nothing of its own).

The generated code knows the schema (field numbers, wire types, what is repeated, which
fields form a oneof, which messages nest); the decoder object `d` it is given supplies the
rest, so the trace format and the control protocol share the generator while keeping their
own error messages and bounds:

  d.open(bytes, "Name")        a cursor `m` over a nested message (m.r: a wire::Reader)
  d.finish(m)                  after the last field: false (with the error) if m.r failed
  d.nested(m, f, t, &bytes)    a length-delimited field's bytes, wire type checked
  d.varint/zigzag/fixed64/fixed32/bytes(m, f, t, &out->x)
                               one scalar, wire type checked, stored by the pointee's type
  d.repeated_varint/repeated_zigzag/repeated_fixed64/repeated_fixed32/repeated_bytes(
      m, f, t, &out->x)        one element (or a packed run of them) appended
  d.append(m, &out->x)         room for one more element of a repeated message (or null)

and optional hooks, used when `d` declares them (checked at compile time; one declared
with parameters that do not fit is a compile error):

  d.field_<message>_<field>(m, f, t, out) replaces the default handling of that field (a
                                         member that is not a copy of the field)
  d.begin_<message>_<oneof>(out, f)      before a oneof member f is decoded
  d.stop_<message>()                     true: end the message's loop before the next field

A message-typed field whose name is no member of *out decodes into *out itself: a oneof
member flattened into its parent (Value's Array, the control Request's commands).
Unknown fields are skipped, as protobuf does; every bound is checked by `d`.
"""

from . import proto

def _misfit(hook, parameters):
    """A hook D declares but that cannot take these arguments would silently not be called:
    a compile error instead (for a hook that is no overload set or template)."""
    return (f"static_assert(!requires {{ &D::{hook}; }}, \"D::{hook} cannot be called as "
            f"{hook}{parameters}\");")


def _field_case(msg, field, kind, schema_ns):
    """The lines of one case of a message's switch (indented for it)."""
    ns = proto.snake_case(msg.name)
    hook = f"field_{ns}_{field.name}"
    repeated = field.label == "repeated"
    member = f"&out->{field.name}"
    body = []
    if isinstance(kind, proto.Message):
        sub = proto.snake_case(kind.name)
        if repeated:
            body += ["std::string_view nested;",
                     "ok = d.nested(m, f, t, &nested);",
                     "if (ok) {",
                     f"  auto* item = d.append(m, {member});",
                     f"  auto inner = d.open(nested, \"{kind.name}\");",
                     f"  ok = item != nullptr && decode_{sub}(d, inner, item);",
                     "}"]
        else:
            body += ["std::string_view nested;",
                     "ok = d.nested(m, f, t, &nested);",
                     "if (ok) {",
                     f"  auto inner = d.open(nested, \"{kind.name}\");",
                     f"  if constexpr (requires {{ {member}; }})",
                     f"    ok = decode_{sub}(d, inner, {member});",
                     "  else",
                     f"    ok = decode_{sub}(d, inner, out);",
                     "}"]
    else:
        call = f"repeated_{kind}" if repeated else kind
        body.append(f"ok = d.{call}(m, f, t, {member});")
    lines = [f"case {schema_ns}::{ns}::{proto.field_constant(field.name)}: {{"]
    if field.oneof:
        begin = f"begin_{ns}_{field.oneof}"
        lines += [f"  if constexpr (requires {{ d.{begin}(out, f); }})",
                  f"    d.{begin}(out, f);",
                  "  else",
                  f"    {_misfit(begin, '(out, f)')}"]
    lines += [f"  if constexpr (requires {{ d.{hook}(m, f, t, out); }}) {{",
              f"    ok = d.{hook}(m, f, t, out);",
              "  } else {",
              f"    {_misfit(hook, '(m, f, t, out)')}"]
    lines += ["    " + line for line in body]
    lines += ["  }", "  break;", "}"]
    return lines


def _message_decoder(schema, msg, schema_ns, source_name):
    ns = proto.snake_case(msg.name)
    lines = [f"// message {msg.name} ({source_name}:{msg.line})",
             "template <typename D, typename M, typename Out>",
             f"bool decode_{ns}(D& d, M& m, Out* out) {{"]
    if not msg.fields:
        lines += ["  (void)out;  // no fields: unknown ones are skipped"]
    lines += ["  uint32_t f = 0;",
              "  ::gltrace::wire::WireType t{};",
              "  for (;;) {",
              f"    if constexpr (requires {{ d.stop_{ns}(); }})",
              f"      if (d.stop_{ns}()) break;",
              "    if (!m.r.next(&f, &t)) break;"]
    if msg.fields:
        lines += ["    bool ok = true;", "    switch (f) {"]
        for field in msg.fields:
            kind = schema.resolve(field)
            lines += ["      " + line for line in _field_case(msg, field, kind, schema_ns)]
        lines += ["      default:", "        m.r.skip(t);", "        break;", "    }",
                  "    if (!ok) return false;"]
    else:
        lines += ["    m.r.skip(t);"]
    lines += ["  }", "  return d.finish(m);", "}", ""]
    return lines


def decoders_h(proto_file, schema_ns, schema_header, source_name):
    """The header of decode_<message> templates, in namespace schema_ns next to the field
    numbers of schema_header (proto.schema_h's output)."""
    schema = proto.Schema(proto_file)
    lines = [f"// Generated by codegen/gen.py from {source_name}. Do not edit.",
             "// One decode_<message>(d, m, out) per message: its fields into the members of",
             "// *out named like them, through the decoder d (codegen/gltrace_codegen/",
             "// decoders.py says what d provides and which hooks it may declare).",
             "#pragma once", "", "#include <cstdint>", "#include <string_view>", "",
             f"#include \"{schema_header}\"", "#include \"protowire/wire.h\"", "",
             f"namespace {schema_ns} {{", ""]
    # Declared first: messages may nest each other in any order.
    for msg in schema.messages:
        lines.append("template <typename D, typename M, typename Out>")
        lines.append(f"bool decode_{proto.snake_case(msg.name)}(D& d, M& m, Out* out);")
    lines.append("")
    for msg in schema.messages:
        lines += _message_decoder(schema, msg, schema_ns, source_name)
    lines += [f"}}  // namespace {schema_ns}", ""]
    return "\n".join(lines)
