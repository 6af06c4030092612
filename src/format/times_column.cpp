#include "format/times_column.h"

#include "format/record_builder.h"
#include "format/schema.h"

namespace gltrace::format {

uint8_t* put_times_head(uint8_t* p, uint64_t unit_ns, size_t first_size, size_t second_size) {
  p = wire::put_varint(p, unit_ns);
  p = wire::put_varint(p, first_size);
  return wire::put_varint(p, second_size);
}

bool read_times_head(const uint8_t* column, size_t size, TimesLayout* layout, const char** error) {
  wire::Reader head(column, size);
  uint64_t unit = head.varint();
  uint64_t first = head.varint();
  uint64_t second = head.varint();
  if (!head.ok()) return *error = "its head is cut short", false;
  if (unit == 0) return *error = "its time unit is 0", false;
  size_t rest = size - head.offset();
  if (first > rest || second > rest - first)
    return *error = "its sections are larger than the column", false;
  layout->unit_ns = unit;
  layout->begin[0] = head.offset();
  layout->end[0] = layout->begin[1] = layout->begin[0] + first;
  layout->end[1] = layout->begin[2] = layout->begin[1] + second;
  layout->end[2] = size;
  return true;
}

TimesEntry times_entry_of(const uint8_t* p, size_t n) {
  uint32_t kind_field = 0;
  std::string_view body;
  if (!read_record_framing(p, n, &kind_field, &body)) return TimesEntry::kNone;
  uint32_t own_field = 0;  // the field that gives the record its own times
  TimesEntry kind = TimesEntry::kNone;
  if (kind_field == schema::record::kCall) {
    own_field = schema::call::kSeq;
    kind = TimesEntry::kCall;
  } else if (kind_field == schema::record::kFrame) {
    own_field = schema::frame::kNumber;
    kind = TimesEntry::kFrame;
  } else {
    return TimesEntry::kNone;
  }
  wire::Reader fields(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  uint32_t field = 0;
  wire::WireType type{};
  while (fields.next(&field, &type)) {
    if (field == own_field) return TimesEntry::kNone;
    fields.skip(type);
  }
  return kind;
}

}  // namespace gltrace::format
