// GL_CALL(source, name): the function `name` of `source`, typed as its
// generated PFN_gltrace_name, found by its generated id: the one spelling
// gltrace's code calls a GL or EGL function by. `source` has
// fn<api::FunctionId, Pfn>(): the real driver (gl_loader::Driver), or the
// layer below the trace layer (trace::next_layer, trace/next.h).
#pragma once

#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"

#define GL_CALL(source, name) ((source).fn<::gltrace::api::kFn_##name, PFN_gltrace_##name>())
