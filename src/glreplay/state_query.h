// What the state worker's two GL parts share (state_reader.h reads the
// current context's state, state_read_back.h its images and buffers): the
// request's errors and fields, enum names, object names between the trace
// and the replay, and the current context's version. Each runs on the
// thread of the call the worker is parked at (state_worker.cpp puts it
// there). Internal to the state worker.
#pragma once

#include <GLES3/gl32.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "glreplay/session.h"
#include "glstate/gl_reader.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

using StateJson = nlohmann::ordered_json;

using glstate::enum_text;
using glstate::RequestError;
using glstate::state_setters;
using glstate::state_table;
using glstate::StateEntry;
using glstate::StateGroup;
using glstate::StateKind;
using glstate::StateQuery;
using glstate::StateSet;
using glstate::uniform_type;
using glstate::UniformRead;
using glstate::UniformType;

// The integer `field` of a request; throws RequestError when it is missing
// (and required) or not an integer.
int64_t integer_field(const StateJson& request, const char* field, bool required,
                      int64_t fallback = 0);

class GlQueries : public glstate::GlReader {
 public:
  explicit GlQueries(Session& session)
      : GlReader(glstate::GlFunctions::of(session.gl())), session_(session) {}

  // The call the worker is parked at, for messages.
  void set_call(uint64_t call) { call_ = call; }

 protected:
  using json = StateJson;

  void need_context();
  // The current context's version.
  void read_version();
  // An object name as a reply shows it: the trace's name.
  json object(ObjectClass cls, uint64_t replayed);
  // A recorded object name of the request, as the replay names it.
  uint64_t replay_name(const json& request, ObjectClass cls, const char* what);
  std::string call_text() const { return std::to_string(call_); }

  Session& session_;
  uint64_t call_ = 0;
};

}  // namespace gltrace::glreplay
