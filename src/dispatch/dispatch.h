// The interposer's dispatch: initialization and the chain hook-up.
#pragma once

#include <cstdint>

#include "dispatch/table.h"

namespace gltrace::dispatch {

// What builds the chain of tables above the driver (the layer loader).
class ChainBuilder {
 public:
  virtual ~ChainBuilder() = default;
  // Returns the table threads start with. Called once, at the first EGL/GL call.
  virtual const Table* build(const Table& driver) = 0;
  // The app got an unknown function `name` through eglGetProcAddress: fill
  // `slot` of every table this builder made, above `driver_function`.
  virtual void add_dynamic(uint32_t slot, const char* name, void* driver_function) = 0;
};

// Set once, from the interposer's constructor, before any EGL/GL call.
void set_chain_builder(ChainBuilder* builder);

// The driver's own table (nullptr before initialization).
const Table* driver_table();

// The real eglGetProcAddress (nullptr if there is no driver).
void* driver_get_proc_address(const char* name);

// Address to hand the app for an unknown function, through a dynamic slot.
// Returns `driver_function` itself if the slots are exhausted.
void* dynamic_entry_point(const char* name, void* driver_function);

}  // namespace gltrace::dispatch
