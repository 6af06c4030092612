// The layer loader: builds Android's layer chain above the driver.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "gltrace/gles_layer.h"
#include "gltrace/live_layer.h"
#include "layers/discovery.h"

namespace gltrace::layers {

class LayerChain final : public dispatch::ChainBuilder {
 public:
  // Decides the layer list (settings, environment), finds, checks and loads
  // each layer, then builds the chain bottom-up: for each layer,
  // AndroidGLESLayer_Initialize(layer_id, get_next_layer_proc_address), then
  // AndroidGLESLayer_GetProcAddress(name, next) for every known function.
  // A layer that cannot be used is skipped with one message; the rest load.
  // When the process is traceable (settings/live_config.h), the trace layer
  // then goes on top as a live layer: threads start in its idle table.
  const dispatch::Table* build(const dispatch::Table& driver) override;
  void add_dynamic(uint32_t slot, const char* name, void* driver_function) override;

 private:
  struct Layer {
    std::string name;
    std::string path;
    PFNANDROIDGLESLAYERINITIALIZEPROC initialize = nullptr;
    PFNANDROIDGLESLAYERGETPROCADDRESSPROC get_proc_address = nullptr;
    const dispatch::Table* next = nullptr;   // the table below: also the layer_id
    std::unique_ptr<dispatch::Table> table;  // this layer's view: its functions, or next's
  };
  struct LiveLayer {
    PFNANDROIDGLESLAYERGETPROCADDRESSPROC get_proc_address = nullptr;
    PFNGLTRACELIVELAYERGETIDLEPROCADDRESSPROC get_idle_proc_address = nullptr;
    std::unique_ptr<dispatch::Table> active;
    std::unique_ptr<dispatch::Table> idle;
  };
  // Loads the trace layer as a live layer above `top`; the table threads
  // start with, or `top` itself if it cannot be loaded.
  const dispatch::Table* build_live(const SearchContext& context, const dispatch::Table* top);

  std::vector<Layer> layers_;  // bottom (nearest the driver) first
  LiveLayer live_;
};

}  // namespace gltrace::layers
