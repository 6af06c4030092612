// Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020) for
// binary32, after Alexander Bolz's C++ version (drachennest), for the
// digits; then the fixed-or-scientific choice of std::to_chars. The tests
// compare it with std::to_chars.
#include "textformat/float_chars.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gltrace::textformat {
namespace {

// g(k) = floor(10^k * 2^(63 - floor(log2(10^k)))) + 1, for k in [kMinPow10, kMaxPow10]:
// 10^k rounded up to 64 bits. Made by
//   python3 -c "from fractions import Fraction as F; import math
//   [print(hex(math.floor(F(10)**k / F(2)**(((k*1741647)>>19)-63))+1)) for k in range(-31,46)]"
constexpr int32_t kMinPow10 = -31;
constexpr int32_t kMaxPow10 = 45;
constexpr uint64_t kPow10[kMaxPow10 - kMinPow10 + 1] = {
    0x81CEB32C4B43FCF5, 0xA2425FF75E14FC32, 0xCAD2F7F5359A3B3F, 0xFD87B5F28300CA0E,
    0x9E74D1B791E07E49, 0xC612062576589DDB, 0xF79687AED3EEC552, 0x9ABE14CD44753B53,
    0xC16D9A0095928A28, 0xF1C90080BAF72CB2, 0x971DA05074DA7BEF, 0xBCE5086492111AEB,
    0xEC1E4A7DB69561A6, 0x9392EE8E921D5D08, 0xB877AA3236A4B44A, 0xE69594BEC44DE15C,
    0x901D7CF73AB0ACDA, 0xB424DC35095CD810, 0xE12E13424BB40E14, 0x8CBCCC096F5088CC,
    0xAFEBFF0BCB24AAFF, 0xDBE6FECEBDEDD5BF, 0x89705F4136B4A598, 0xABCC77118461CEFD,
    0xD6BF94D5E57A42BD, 0x8637BD05AF6C69B6, 0xA7C5AC471B478424, 0xD1B71758E219652C,
    0x83126E978D4FDF3C, 0xA3D70A3D70A3D70B, 0xCCCCCCCCCCCCCCCD, 0x8000000000000001,
    0xA000000000000001, 0xC800000000000001, 0xFA00000000000001, 0x9C40000000000001,
    0xC350000000000001, 0xF424000000000001, 0x9896800000000001, 0xBEBC200000000001,
    0xEE6B280000000001, 0x9502F90000000001, 0xBA43B74000000001, 0xE8D4A51000000001,
    0x9184E72A00000001, 0xB5E620F480000001, 0xE35FA931A0000001, 0x8E1BC9BF04000001,
    0xB1A2BC2EC5000001, 0xDE0B6B3A76400001, 0x8AC7230489E80001, 0xAD78EBC5AC620001,
    0xD8D726B7177A8001, 0x878678326EAC9001, 0xA968163F0A57B401, 0xD3C21BCECCEDA101,
    0x84595161401484A1, 0xA56FA5B99019A5C9, 0xCECB8F27F4200F3B, 0x813F3978F8940985,
    0xA18F07D736B90BE6, 0xC9F2C9CD04674EDF, 0xFC6F7C4045812297, 0x9DC5ADA82B70B59E,
    0xC5371912364CE306, 0xF684DF56C3E01BC7, 0x9A130B963A6C115D, 0xC097CE7BC90715B4,
    0xF0BDC21ABB48DB21, 0x96769950B50D88F5, 0xBC143FA4E250EB32, 0xEB194F8E1AE525FE,
    0x92EFD1B8D0CF37BF, 0xB7ABC627050305AE, 0xE596B7B0C643C71A, 0x8F7E32CE7BEA5C70,
    0xB35DBF821AE4F38C,
};

constexpr int32_t kSignificandBits = 23;  // stored, without the hidden bit
constexpr int32_t kExponentBias = 127 + kSignificandBits;
constexpr uint32_t kHiddenBit = uint32_t{1} << kSignificandBits;

// floor(log10(2^e)), floor(log10(3/4 * 2^e)), floor(log2(10^e)) for the
// exponents of floats (arithmetic shifts round towards minus infinity).
int32_t floor_log10_pow2(int32_t e) { return (e * 1262611) >> 22; }
int32_t floor_log10_three_quarters_pow2(int32_t e) { return (e * 1262611 - 524031) >> 22; }
int32_t floor_log2_pow10(int32_t e) { return (e * 1741647) >> 19; }

// g * cp / 2^64, its last bit set when the part cut off is (nearly) nonzero.
uint32_t round_to_odd(uint64_t g, uint32_t cp) {
  auto product = static_cast<unsigned __int128>(g) * cp;
  auto middle = static_cast<uint64_t>(product >> 32);
  return static_cast<uint32_t>(middle >> 32) | (static_cast<uint32_t>(middle) > 1 ? 1u : 0u);
}

struct Decimal {
  uint32_t digits;
  int32_t exponent;  // the value is digits * 10^exponent
};

// The shortest decimal in the float's rounding interval; of two, the closer;
// of two as close, the even one.
Decimal to_decimal(uint32_t significand, uint32_t exponent) {
  uint32_t c = significand;
  int32_t q = 1 - kExponentBias;
  if (exponent != 0) {
    c |= kHiddenBit;
    q = static_cast<int32_t>(exponent) - kExponentBias;
    // A small integer is its own shortest decimal.
    if (q <= 0 && -q <= kSignificandBits && (c & ((uint32_t{1} << -q) - 1)) == 0)
      return {c >> -q, 0};
  }
  bool accept_bounds = c % 2 == 0;
  bool lower_is_closer = significand == 0 && exponent > 1;
  uint32_t cbl = 4 * c - 2 + (lower_is_closer ? 1 : 0);
  uint32_t cb = 4 * c;
  uint32_t cbr = 4 * c + 2;
  int32_t k = lower_is_closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
  int32_t h = q + floor_log2_pow10(-k) + 1;
  uint64_t pow10 = kPow10[-k - kMinPow10];
  uint32_t vbl = round_to_odd(pow10, cbl << h);
  uint32_t vb = round_to_odd(pow10, cb << h);
  uint32_t vbr = round_to_odd(pow10, cbr << h);
  uint32_t lower = vbl + (accept_bounds ? 0 : 1);
  uint32_t upper = vbr - (accept_bounds ? 0 : 1);
  uint32_t s = vb / 4;
  if (s >= 10) {  // one digit shorter
    uint32_t sp = s / 10;
    bool up_inside = lower <= 40 * sp;
    bool wp_inside = 40 * sp + 40 <= upper;
    if (up_inside != wp_inside) return {sp + (wp_inside ? 1 : 0), k + 1};
  }
  bool u_inside = lower <= 4 * s;
  bool w_inside = 4 * s + 4 <= upper;
  if (u_inside != w_inside) return {s + (w_inside ? 1 : 0), k};
  uint32_t mid = 4 * s + 2;
  bool round_up = vb > mid || (vb == mid && (s & 1) != 0);
  return {s + (round_up ? 1 : 0), k};
}

constexpr uint32_t kPow10u32[] = {1,      10,      100,      1000,      10000,
                                  100000, 1000000, 10000000, 100000000, 1000000000};

int32_t digit_count(uint32_t v) {  // 0 < v < 10^9; no loop to mispredict
  int32_t t = (static_cast<int32_t>(std::bit_width(v)) * 1233) >> 12;  // about log10(v)
  return t + 1 - (v < kPow10u32[t] ? 1 : 0);
}

// Writes v's digits so that they end at `end`, two at a time, straight to
// their places: a copy from a digit buffer reads back bytes just stored one
// by one, and such a load stalls.
void write_digits(char* end, uint32_t v) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  while (v >= 100) {
    end -= 2;
    memcpy(end, kPairs + (v % 100) * 2, 2);
    v /= 100;
  }
  if (v >= 10)
    memcpy(end - 2, kPairs + v * 2, 2);
  else
    end[-1] = static_cast<char>('0' + v);
}

}  // namespace

char* float_chars(char* out, float value) {
  uint32_t bits = 0;
  memcpy(&bits, &value, sizeof bits);
  uint32_t significand = bits & (kHiddenBit - 1);
  uint32_t exponent = (bits >> kSignificandBits) & 0xff;
  if (exponent == 0xff || (exponent == 0 && significand == 0))  // inf, nan, zero
    return std::to_chars(out, out + kFloatCharsMax, value).ptr;
  if ((bits >> 31) != 0) *out++ = '-';
  Decimal d = to_decimal(significand, exponent);
  while (d.digits % 10 == 0) d.digits /= 10, ++d.exponent;
  int32_t n = digit_count(d.digits);
  int32_t e = d.exponent;
  // Fixed when not longer than scientific ("1.5e-05" has n + 5 chars).
  bool fixed = n == 1 ? e >= -3 && e <= 4 : e >= -(n + 3) && e <= 5;
  if (fixed && e > 0)  // an integer: all its digits are printed, so the exact ones
    return std::to_chars(out, out + kFloatCharsMax, static_cast<uint64_t>(std::fabs(value))).ptr;
  if (fixed && e == 0) {
    write_digits(out + n, d.digits);
    return out + n;
  }
  if (fixed && n + e <= 0) {  // 0.001234: at most 3 zeros after the point
    std::copy_n("0.000", 5, out);
    write_digits(out + 2 - e, d.digits);
    return out + 2 - e;
  }
  // 1.234 or 1.234e+20 (most often one digit before the point): the digits
  // one place to the right, then the ones before the point moved back.
  int32_t whole = fixed ? n + e : 1;
  write_digits(out + n + 1, d.digits);
  if (whole == 1)
    out[0] = out[1];
  else
    memmove(out, out + 1, whole);
  out[whole] = '.';
  out += n == whole ? n : n + 1;  // 1e+20 has no point
  if (fixed) return out;
  int32_t x = e + n - 1;
  out[0] = 'e';
  out[1] = x < 0 ? '-' : '+';
  x = x < 0 ? -x : x;  // at most 45: two digits
  out[2] = static_cast<char>('0' + x / 10);
  out[3] = static_cast<char>('0' + x % 10);
  return out + 4;
}

}  // namespace gltrace::textformat
