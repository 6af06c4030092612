// Deterministic mutation testing: thousands of randomly edited traces (fixed
// seed) through the reader and decoder, so every build exercises hostile
// input, not only the fuzzer's. Crashes and sanitizer reports fail the test;
// every error must name an offset.
#include "hostile.h"

#include <gtest/gtest.h>

#include <random>

#include "format/container.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace {
namespace {

std::vector<uint8_t> trace(int chunks, int level) {
  std::string path = test::make_temp_dir() + "/seed.gltrace";
  format::WriterOptions options;
  options.zstd_level = level;
  test::write_small_trace(path, chunks, 3, options);
  return test::read_bytes(path);
}

void mutate(std::vector<uint8_t>& bytes, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % (n == 0 ? 1 : n)); };
  static const uint32_t kInteresting[] = {
      0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 64u << 20, (64u << 20) + 1, 16, 24};
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    size_t at = pick(bytes.size());
    switch (rng() % 7) {
      case 0:  // flip a bit
        bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:  // a random byte
        bytes[at] = static_cast<uint8_t>(rng());
        break;
      case 2:  // an interesting 32-bit value (sizes, counts)
        if (at + 4 <= bytes.size()) format::put_u32(bytes.data() + at, kInteresting[pick(12)]);
        break;
      case 3:  // delete a range
        bytes.erase(bytes.begin() + static_cast<long>(at),
                    bytes.begin() + static_cast<long>(std::min(bytes.size(), at + 1 + pick(16))));
        break;
      case 4: {  // insert random bytes
        std::vector<uint8_t> extra(1 + pick(16));
        for (uint8_t& b : extra) b = static_cast<uint8_t>(rng());
        bytes.insert(bytes.begin() + static_cast<long>(at), extra.begin(), extra.end());
        break;
      }
      case 5:  // duplicate a range elsewhere
        if (bytes.size() > 8) {
          size_t from = pick(bytes.size() - 8);
          std::vector<uint8_t> copy(bytes.begin() + static_cast<long>(from),
                                    bytes.begin() + static_cast<long>(from + 1 + pick(8)));
          bytes.insert(bytes.begin() + static_cast<long>(at), copy.begin(), copy.end());
        }
        break;
      default:  // a varint-ish byte: continuation bits make lengths huge
        bytes[at] |= 0x80;
        break;
    }
  }
}

TEST(Hostile, DeterministicMutations) {
  std::vector<std::vector<uint8_t>> seeds = {trace(1, 0), trace(3, 0), trace(2, 1), trace(3, 1)};
  std::mt19937_64 rng(20240611);
  size_t errors = 0;
  size_t total = 0;
  for (int i = 0; i < 10000; ++i) {
    std::vector<uint8_t> input = seeds[i % seeds.size()];
    mutate(input, rng);
    // Mode byte: as is, CRCs fixed (reaches zstd and the records), or a bare payload.
    uint8_t mode = static_cast<uint8_t>(i % 3);
    if (mode == 2 && input.size() > 40) input.erase(input.begin(), input.begin() + 40);
    input.insert(input.begin(), mode);
    errors += test::exercise(input.data(), input.size(), /*check=*/true) ? 0 : 1;
    ++total;
  }
  // Sanity: the edits mostly break things, and some inputs survive them.
  EXPECT_GT(errors, total / 4);
  EXPECT_LT(errors, total);
}

// Payloads made of plausible record bytes with random lengths and types.
TEST(Hostile, RandomRecordSoup) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> input = {2};
    size_t n = rng() % 200;
    for (size_t k = 0; k < n; ++k) {
      uint64_t r = rng();
      // Bias toward small field numbers and valid wire types.
      input.push_back(r % 3 == 0 ? static_cast<uint8_t>(((r >> 8) % 12 + 1) << 3 | (r >> 16) % 6)
                                 : static_cast<uint8_t>(r >> 24));
    }
    test::exercise(input.data(), input.size(), true);
  }
}

// Each generated hostile file that is damaged reads to an error or warning
// naming an offset, through both readers (exercise() aborts on one without);
// the ones only big when decoded run through the commands in
// tests/hostile_commands.
TEST(Hostile, GeneratedKindsFailWithAnOffset) {
  for (const test::HostileTrace& kind : test::hostile_traces()) {
    if (kind.kind.rfind("many_", 0) == 0 || kind.kind.rfind("huge_", 0) == 0 ||
        kind.kind == "seq_gap")
      continue;
    SCOPED_TRACE(kind.kind);
    std::vector<uint8_t> input = kind.make();
    input.insert(input.begin(), uint8_t{0});  // read as it is
    bool ok = test::exercise(input.data(), input.size(), /*check=*/true);
    // A damaged index only costs seeking: the trace still reads.
    EXPECT_EQ(ok, kind.kind == "escapes_in_names" || kind.kind == "hostile_strings" ||
                      kind.kind == "unknown_function_ids" || kind.kind == "cut_short" ||
                      kind.kind == "damaged_index");
  }
}

}  // namespace
}  // namespace gltrace
