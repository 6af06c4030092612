#include "format/times_column.h"

#include "format/record_builder.h"
#include "format/schema.h"

namespace gltrace::format {

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
