"""Checks of the decoders header written from a .proto (standard library only); what the
generated code does with real bytes is checked by tests/format and tests/control."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from gltrace_codegen import decoders, proto  # noqa: E402

GEN = os.path.join(HERE, "..", "gen.py")
ROOT = os.path.join(HERE, "..", "..")

SAMPLE = textwrap.dedent("""\
    syntax = "proto3";
    package demo.v1;
    message Outer {
      uint32 count = 1;
      repeated sint64 list = 2 [packed = true];
      fixed64 id = 3;
      float ratio = 4;
      string name = 5;
      repeated Inner items = 6;
      oneof kind {
        Inner inner = 7;
        .demo.v1.Mode mode = 8;
      }
      Empty nothing = 9;
    }
    message Inner { bytes data = 1; }
    message Empty {}
    enum Mode { MODE_NONE = 0; }
    """)


def generate(text):
    return decoders.decoders_h(proto.parse(text, "t.proto"), "demo::schema", "demo/schema.h",
                               "t.proto")


def case_of(header, constant):
    """The lines of the switch case for a field constant."""
    start = header.index(f"case demo::schema::{constant}: {{")
    return header[start:header.index("        break;", start)]


class DecodersTest(unittest.TestCase):
    def test_one_template_per_message_declared_first(self):
        header = generate(SAMPLE)
        for name in ("outer", "inner", "empty"):
            declaration = f"bool decode_{name}(D& d, M& m, Out* out);"
            definition = f"bool decode_{name}(D& d, M& m, Out* out) {{"
            self.assertLess(header.index(declaration), header.index(definition))
        self.assertIn('#include "demo/schema.h"', header)
        self.assertIn("namespace demo::schema {", header)

    def test_scalars_go_to_the_member_named_like_the_field(self):
        header = generate(SAMPLE)
        self.assertIn("ok = d.varint(m, f, t, &out->count);", case_of(header, "outer::kCount"))
        self.assertIn("ok = d.repeated_zigzag(m, f, t, &out->list);",
                      case_of(header, "outer::kList"))
        self.assertIn("ok = d.fixed64(m, f, t, &out->id);", case_of(header, "outer::kId"))
        self.assertIn("ok = d.fixed32(m, f, t, &out->ratio);", case_of(header, "outer::kRatio"))
        self.assertIn("ok = d.bytes(m, f, t, &out->name);", case_of(header, "outer::kName"))
        # An enum, named with its package, is a varint.
        self.assertIn("ok = d.varint(m, f, t, &out->mode);", case_of(header, "outer::kMode"))

    def test_every_field_has_a_hook_that_replaces_it(self):
        header = generate(SAMPLE)
        count = case_of(header, "outer::kCount")
        self.assertIn("if constexpr (requires { d.field_outer_count(m, f, t, out); }) {", count)
        self.assertLess(count.index("d.field_outer_count(m, f, t, out);\n"),
                        count.index("d.varint("))

    def test_oneof_members_call_the_begin_hook_first(self):
        header = generate(SAMPLE)
        for constant in ("outer::kInner", "outer::kMode"):
            self.assertIn("d.begin_outer_kind(out, f);", case_of(header, constant))
        self.assertNotIn("begin_outer_kind", case_of(header, "outer::kCount"))

    def test_messages_nest_into_their_member_or_flatten(self):
        header = generate(SAMPLE)
        inner = case_of(header, "outer::kInner")
        self.assertIn('auto inner = d.open(nested, "Inner");', inner)
        self.assertIn("if constexpr (requires { &out->inner; })", inner)
        self.assertIn("ok = decode_inner(d, inner, &out->inner);", inner)
        self.assertIn("ok = decode_inner(d, inner, out);", inner)
        items = case_of(header, "outer::kItems")
        self.assertIn("auto* item = d.append(m, &out->items);", items)
        self.assertIn("ok = item != nullptr && decode_inner(d, inner, item);", items)

    def test_unknown_fields_are_skipped_and_empty_messages_decode(self):
        header = generate(SAMPLE)
        outer = header[header.index("bool decode_outer(D& d, M& m, Out* out) {"):]
        self.assertIn("default:\n        m.r.skip(t);", outer)
        empty = header[header.index("bool decode_empty(D& d, M& m, Out* out) {"):]
        empty = empty[:empty.index("\n}\n")]
        self.assertIn("m.r.skip(t);", empty)
        self.assertIn("return d.finish(m);", empty)
        self.assertIn("d.stop_empty()", empty)

    def test_unknown_and_foreign_types_are_errors_naming_the_line(self):
        for text, what in (
                ('syntax = "proto3";\nmessage A {\n  Missing x = 1;\n}\n', "unknown type Missing"),
                ('syntax = "proto3";\npackage p;\nmessage A {\n  .q.B x = 1;\n}\n',
                 "not of this file")):
            with self.assertRaises(proto.ProtoError) as caught:
                generate(text)
            self.assertIn(what, str(caught.exception))
            self.assertEqual(caught.exception.line, text.count("\n", 0, text.index(" x = ")) + 1)

    def test_gen_py_writes_both_headers(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "t.proto")
            with open(source, "w", encoding="utf-8") as f:
                f.write(SAMPLE)
            schema, decoders_path = os.path.join(tmp, "schema.h"), os.path.join(tmp, "dec.h")
            subprocess.run([sys.executable, GEN, "--proto", source, "--namespace", "demo::schema",
                            "--header", schema, "--decoders", decoders_path,
                            "--schema-include", "demo/schema.h"], check=True)
            with open(decoders_path, encoding="utf-8") as f:
                self.assertIn("bool decode_outer(", f.read())
            missing = subprocess.run([sys.executable, GEN, "--proto", source, "--namespace", "x",
                                      "--header", schema, "--decoders", decoders_path],
                                     capture_output=True, text=True)
            self.assertNotEqual(missing.returncode, 0)
            self.assertIn("--decoders needs --schema-include", missing.stderr)


# A decoder for SAMPLE's Inner: what the generated code needs of `d`, and a hook.
DECODER = textwrap.dedent("""\
    #include <string>
    #include <string_view>
    #include "demo/decoders.h"
    struct Msg { gltrace::wire::Reader r; };
    struct Inner { std::string_view data; };
    struct D {
      Msg open(std::string_view b, const char*) {
        return {gltrace::wire::Reader(reinterpret_cast<const uint8_t*>(b.data()), b.size())};
      }
      bool finish(Msg& m) { return m.r.ok(); }
      HOOK
    };
    int main() {
      const uint8_t bytes[] = {0x0a, 0x02, 'h', 'i'};
      D d;
      Msg m{gltrace::wire::Reader(bytes, sizeof bytes)};
      Inner inner;
      return demo::schema::decode_inner(d, m, &inner) && inner.data == "hi!" ? 0 : 1;
    }
    """)


def compile_generated(proto_text, kind, program_text, flags=()):
    """Generates the schema and the `kind` header ("decoders" or "encoders")
    of proto_text as demo/, compiles program_text against them and runs it:
    (the compiler's result, the program's, None when it did not build)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "t.proto")
        with open(source, "w", encoding="utf-8") as f:
            f.write(proto_text)
        os.makedirs(os.path.join(tmp, "demo"))
        subprocess.run([sys.executable, GEN, "--proto", source, "--namespace", "demo::schema",
                        "--header", os.path.join(tmp, "demo", "schema.h"),
                        f"--{kind}", os.path.join(tmp, "demo", f"{kind}.h"),
                        "--schema-include", "demo/schema.h"], check=True)
        program = os.path.join(tmp, "t.cpp")
        with open(program, "w", encoding="utf-8") as f:
            f.write(program_text)
        binary = os.path.join(tmp, "t")
        built = subprocess.run(["c++", "-std=c++20", *flags, "-I", tmp, "-I",
                                os.path.join(ROOT, "src"), program, "-o", binary],
                               capture_output=True, text=True)
        ran = (subprocess.run([binary], capture_output=True, text=True)
               if built.returncode == 0 else None)
        return built, ran


@unittest.skipIf(shutil.which("c++") is None, "no C++ compiler")
class GeneratedCodeTest(unittest.TestCase):
    def build(self, hook):
        """The compiler's result for DECODER with this hook, and the program's exit status."""
        built, ran = compile_generated(SAMPLE, "decoders", DECODER.replace("HOOK", hook))
        return built, ran.returncode if ran is not None else None

    def test_a_hook_replaces_the_field(self):
        built, ran = self.build("""
            bool field_inner_data(Msg& m, uint32_t, gltrace::wire::WireType, Inner* out) {
              static std::string kept;
              kept = std::string(m.r.bytes()) + "!";
              out->data = kept;
              return true;
            }""")
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(ran, 0)

    def test_a_hook_that_does_not_fit_is_a_compile_error(self):
        built, _ = self.build("""
            bool field_inner_data(Msg& m, Inner* out) { return true; }""")
        self.assertNotEqual(built.returncode, 0)
        self.assertIn("D::field_inner_data cannot be called as field_inner_data(m, f, t, out)",
                      built.stderr)


if __name__ == "__main__":
    unittest.main()
