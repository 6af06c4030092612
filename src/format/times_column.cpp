#include "format/times_column.h"

#include "format/record_builder.h"
#include "format/schema.h"

namespace gltrace::format {

uint8_t* put_times_start(uint8_t* p, uint64_t unit_ns,
                         const size_t (&section_sizes)[kTimesSections]) {
  size_t sections = section_sizes[0] + section_sizes[1] + section_sizes[2];
  size_t head = wire::varint_size(unit_ns) + wire::varint_size(section_sizes[0]) +
                wire::varint_size(section_sizes[1]);
  p = wire::put_varint(p, uint64_t{schema::chunk::kTimes} << 3 | wire::kLengthDelimited);
  p = wire::put_varint(p, head + sections);
  p = wire::put_varint(p, unit_ns);
  p = wire::put_varint(p, section_sizes[0]);
  return wire::put_varint(p, section_sizes[1]);
}

std::string_view leading_times_column(const uint8_t* payload, size_t size) {
  wire::Reader reader(payload, size);
  uint32_t field = 0;
  wire::WireType type{};
  if (!reader.next(&field, &type) || field != schema::chunk::kTimes ||
      type != wire::kLengthDelimited)
    return {};
  std::string_view column = reader.bytes();
  return reader.ok() ? column : std::string_view();
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
