// The layer loader: builds Android's layer chain above the driver.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "gltrace/gles_layer.h"

namespace gltrace::layers {

class LayerChain final : public dispatch::ChainBuilder {
 public:
  // Decides the layer list (settings, environment), finds, checks and loads
  // each layer, then builds the chain bottom-up: for each layer,
  // AndroidGLESLayer_Initialize(layer_id, get_next_layer_proc_address), then
  // AndroidGLESLayer_GetProcAddress(name, next) for every known function.
  // A layer that cannot be used is skipped with one message; the rest load.
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
  std::vector<Layer> layers_;  // bottom (nearest the driver) first
};

}  // namespace gltrace::layers
