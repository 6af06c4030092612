#include "format/times_column.h"

#include "format/schema.h"

namespace gltrace::format {

TimesEntry times_entry_of(const uint8_t* p, size_t n) {
  wire::Reader entry(p, n);
  uint32_t field = 0;
  wire::WireType type{};
  if (!entry.next(&field, &type) || field != schema::chunk::kRecords ||
      type != wire::kLengthDelimited)
    return TimesEntry::kNone;
  std::string_view record_bytes = entry.bytes();
  wire::Reader record(reinterpret_cast<const uint8_t*>(record_bytes.data()), record_bytes.size());
  if (!record.next(&field, &type) || type != wire::kLengthDelimited) return TimesEntry::kNone;
  uint32_t own_field = 0;  // the field that gives the record its own times
  TimesEntry kind = TimesEntry::kNone;
  if (field == schema::record::kCall) {
    own_field = schema::call::kSeq;
    kind = TimesEntry::kCall;
  } else if (field == schema::record::kFrame) {
    own_field = schema::frame::kNumber;
    kind = TimesEntry::kFrame;
  } else {
    return TimesEntry::kNone;
  }
  std::string_view body = record.bytes();
  wire::Reader fields(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  while (fields.next(&field, &type)) {
    if (field == own_field) return TimesEntry::kNone;
    fields.skip(type);
  }
  return kind;
}

}  // namespace gltrace::format
