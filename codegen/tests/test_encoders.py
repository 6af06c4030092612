"""Checks of the encoders header written from a .proto (standard library only): what it
declares, and (with a C++ compiler) the bytes the generated functions write. The trace
and control encoders themselves are checked by tests/format and tests/control."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from gltrace_codegen import encoders, proto  # noqa: E402
from test_decoders import GEN, SAMPLE as DECODERS_SAMPLE, compile_generated  # noqa: E402

# The decoders' sample, with a field of each kind it lacks, a field number of two key
# bytes and a nested message.
SAMPLE = DECODERS_SAMPLE.replace("  Empty nothing = 9;\n", """\
  sint32 delta = 9;
  bool flag = 10;
  int64 wide = 300;
  message Nested { repeated string words = 1; }
""").replace(".demo.v1.Mode mode = 8;", "Mode mode = 8;").replace(
    "enum Mode { MODE_NONE = 0; }", "enum Mode { MODE_NONE = 0; MODE_ON = 1; }")
assert "int64 wide = 300;" in SAMPLE and "MODE_ON" in SAMPLE


def generate(text):
    return encoders.encoders_h(proto.parse(text, "t.proto"), "demo::schema", "demo/schema.h",
                               "t.proto")


class EncodersTest(unittest.TestCase):
    def test_functions_follow_the_field_kinds(self):
        header = generate(SAMPLE)
        self.assertIn('#include "demo/schema.h"', header)
        for declaration in (
                "inline constexpr uint32_t kCountTag = kCount << 3 | ::gltrace::wire::kVarint;",
                "inline void set_count(::gltrace::wire::Encoder& e, uint64_t v)",
                "inline uint8_t* put_count(uint8_t* p, uint64_t v)",
                "inline size_t begin_list(::gltrace::wire::Encoder& e)",
                "inline void pack_list(::gltrace::wire::Encoder& e, int64_t v)",
                "inline void add_list(::gltrace::wire::Encoder& e, int64_t v)",
                "inline void set_list_packed(::gltrace::wire::Encoder& e, const void* bytes",
                "inline constexpr uint32_t kIdTag = kId << 3 | ::gltrace::wire::kFixed64;",
                "inline void set_ratio(::gltrace::wire::Encoder& e, float v)",
                "inline void set_name(::gltrace::wire::Encoder& e, std::string_view s)",
                "inline size_t begin_items(::gltrace::wire::Encoder& e)",
                "inline void add_items(::gltrace::wire::Encoder& e, const void* bytes, size_t n)",
                "inline size_t begin_inner(::gltrace::wire::Encoder& e)",
                "inline void set_mode(::gltrace::wire::Encoder& e, int64_t v)",
                "inline uint8_t* put_delta(uint8_t* p, int64_t v)",
                "namespace nested {",
                "inline void add_words(::gltrace::wire::Encoder& e, std::string_view s)"):
            self.assertIn(declaration, header)
        # Fixed-size and length-delimited fields have no put_ (only varints are written
        # into reserved memory), and a message without fields has no namespace.
        self.assertNotIn("put_id(", header)
        self.assertNotIn("put_name(", header)
        self.assertNotIn("namespace empty", header)

    def test_a_generated_name_that_collides_is_an_error_naming_the_line(self):
        text = 'syntax = "proto3";\nmessage A {\n  uint32 x = 1;\n  uint32 x_tag = 2;\n}\n'
        with self.assertRaises(proto.ProtoError) as caught:
            generate(text)
        self.assertIn("collides", str(caught.exception))
        self.assertEqual(caught.exception.line, 3)

    def test_gen_py_needs_schema_include(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "t.proto")
            with open(source, "w", encoding="utf-8") as f:
                f.write(SAMPLE)
            missing = subprocess.run([sys.executable, GEN, "--proto", source, "--namespace", "x",
                                      "--header", os.path.join(tmp, "s.h"),
                                      "--encoders", os.path.join(tmp, "e.h")],
                                     capture_output=True, text=True)
            self.assertNotEqual(missing.returncode, 0)
            self.assertIn("--encoders needs --schema-include", missing.stderr)


# Encodes one Outer with every kind of function and compares with protobuf's bytes,
# worked out by hand from the encoding rules.
PROGRAM = textwrap.dedent("""\
    #include <cstdio>
    #include <cstring>
    #include "demo/encoders.h"
    namespace o = demo::schema::outer;
    int main() {
      gltrace::wire::Encoder e;
      o::set_count(e, 150);                            // 08 96 01
      size_t list = o::begin_list(e);                  // 12 04 01 04 fe 01
      o::pack_list(e, -1);
      o::pack_list(e, 2);
      o::pack_list(e, 127);
      e.end_nested(list);
      o::set_id(e, 0x0102030405060708u);              // 19 08 07 06 05 04 03 02 01
      o::set_ratio(e, 1.0f);                           // 25 00 00 80 3f
      o::set_name(e, "hi");                            // 2a 02 68 69
      size_t item = o::begin_items(e);                 // 32 03 0a 01 78
      demo::schema::inner::set_data(e, "x", 1);
      e.end_nested(item);
      o::set_mode(e, demo::schema::mode::kModeOn);     // 40 01
      o::set_flag(e, true);                            // 50 01
      o::set_wide(e, -1);                              // e0 12 ff*9 01
      uint8_t* p = e.begin_write(32);
      p = o::put_delta(p, -2);                         // 48 03
      p = o::put_count(p, 1);                          // 08 01
      e.end_write(p);
      o::nested::add_words(e, "a");                    // 0a 01 61 (a Nested's field)
      static const unsigned char want[] = {
          0x08, 0x96, 0x01, 0x12, 0x04, 0x01, 0x04, 0xfe, 0x01,
          0x19, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
          0x25, 0x00, 0x00, 0x80, 0x3f, 0x2a, 0x02, 0x68, 0x69,
          0x32, 0x03, 0x0a, 0x01, 0x78, 0x40, 0x01, 0x50, 0x01,
          0xe0, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
          0x48, 0x03, 0x08, 0x01, 0x0a, 0x01, 0x61};
      if (e.size() == sizeof want && memcmp(e.data(), want, sizeof want) == 0) return 0;
      for (size_t i = 0; i < e.size(); ++i) printf("%02x ", e.data()[i]);
      printf("\\n");
      return 1;
    }
    """)


@unittest.skipIf(shutil.which("c++") is None, "no C++ compiler")
class GeneratedCodeTest(unittest.TestCase):
    def test_the_bytes_are_protobufs(self):
        built, ran = compile_generated(SAMPLE, "encoders", PROGRAM, ("-Wall", "-Wextra", "-Werror"))
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(ran.returncode, 0, ran.stdout)


if __name__ == "__main__":
    unittest.main()
