// The trace creator's text form: a JSON description of a surface trace
// (displays, surfaces, transactions at times, buffer updates and VSyncs at
// rates, deletions) that `gltrace surface create` turns into a trace, and
// that `gltrace surface describe` prints back from any trace. The format is
// documented in docs/surface.md; describe prints only explicit events, so
// create(describe(T)) == T.
#pragma once

#include <string>

#include "surface/surface.pb.h"

namespace gltrace::surface {

// Builds a trace from a description. False with *error naming the place in
// the description that is wrong.
bool create_trace(const std::string& json_text, Trace* trace, std::string* error);

// The description of a trace: one explicit event per increment, in order.
std::string describe_trace(const Trace& trace);

}  // namespace gltrace::surface
