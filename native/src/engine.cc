// The engine factory: the one place that lists engines.
#include "engine.h"

#include "pocketsphinx_engine.h"

namespace voxdex {

std::unique_ptr<Engine> CreateEngine(const ModelDesc& desc) {
  if (desc.engine == "pocketsphinx") return std::make_unique<PocketSphinxEngine>(desc);
  throw EngineError("MODEL_LOAD_FAILED", "model " + desc.name + ": unknown engine \"" + desc.engine + "\"");
}

std::vector<std::string> EngineNames() { return {"pocketsphinx"}; }

}  // namespace voxdex
