#include "glreplay/check.h"

#include <typeinfo>

#include "glreplay/validate.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

bool check_trace(replay::IncrementSource& source, CheckReport* report, size_t max_lines) {
  TrackedState state;
  Validation validation;
  replay::Increment increment;
  for (;;) {
    increment = {};
    replay::SourceResult result = source.next(&increment, &report->error);
    if (result == replay::SourceResult::kEnd) return true;
    if (result == replay::SourceResult::kError) return false;
    if (increment.payload == nullptr || typeid(*increment.payload) != typeid(ReplayCall)) continue;
    const auto& call = static_cast<const ReplayCall&>(*increment.payload);
    ++report->calls;
    // Only the functions replayed generically have rules; the hand-written
    // EGL calls check their own arguments.
    state.set_context(call.context);
    validate_call(call, state, &validation);
    // A call whose data the trace lacks is refused as well (by Args, when
    // it runs): named here with what the capture recorded instead.
    const std::string& why = validation.ok() ? validation.uncaptured : validation.error;
    if (!why.empty()) {
      if (++report->refused <= max_lines)
        report->lines.push_back("call " + std::to_string(call.seq) + ": would refuse " +
                                api::kFunctionInfo[call.function].name + ": " + why);
      continue;  // refused: it changes no state
    }
    state.update(call);
  }
}

}  // namespace gltrace::glreplay
