#include "glreplay/state_query.h"

namespace gltrace::glreplay {

int64_t integer_field(const StateJson& request, const char* field, bool required,
                      int64_t fallback) {
  auto it = request.find(field);
  if (it == request.end() || it->is_null()) {
    if (required) throw RequestError{std::string("missing \"") + field + "\""};
    return fallback;
  }
  if (!it->is_number_integer())
    throw RequestError{std::string("\"") + field + "\" is not an integer"};
  return it->get<int64_t>();
}

void GlQueries::need_context() {
  if (!session_.has_current())
    throw RequestError{"no context is current on the thread of call " + call_text()};
}

void GlQueries::read_version() { GlReader::read_version(session_.current().client_version); }

StateJson GlQueries::object(ObjectClass cls, uint64_t replayed) {
  if (replayed == 0) return nullptr;
  std::optional<uint64_t> recorded = session_.recorded_name(cls, replayed);
  if (recorded) return {{"name", *recorded}};
  // Made by the replay alone (none of the trace's names): said so.
  return {{"name", nullptr}, {"replay_name", replayed}};
}

uint64_t GlQueries::replay_name(const StateJson& request, ObjectClass cls, const char* what) {
  int64_t recorded = integer_field(request, "name", true);
  if (recorded <= 0) throw RequestError{std::string("\"name\" must be a ") + what + " name (> 0)"};
  if (!session_.defines_name(cls, static_cast<uint64_t>(recorded)))
    throw RequestError{"no " + std::string(what) + " " + std::to_string(recorded) +
                       " exists in the trace's context at call " + call_text()};
  return session_.map_name(cls, static_cast<uint64_t>(recorded));
}

}  // namespace gltrace::glreplay
