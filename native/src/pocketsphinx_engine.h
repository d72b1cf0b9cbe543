// PocketSphinx (5prealpha, Debian's libpocketsphinx3) behind the Engine interface.
#pragma once

#include <string>
#include <vector>

#include "engine.h"

struct ps_decoder_s;
struct cmd_ln_s;

namespace voxdex {

// The library's last error lines on this thread (pocketsphinx_engine.cc's log callback).
extern thread_local std::string lastError;

class PocketSphinxEngine : public Engine {
 public:
  explicit PocketSphinxEngine(const ModelDesc& desc);  // throws EngineError(MODEL_LOAD_FAILED)
  ~PocketSphinxEngine() override;
  PocketSphinxEngine(const PocketSphinxEngine&) = delete;
  PocketSphinxEngine& operator=(const PocketSphinxEngine&) = delete;

  int SampleRate() const override { return sampleRate_; }
  Transcript Decode(const int16_t* pcm, size_t samples, const AbortFlag& abort, const DecodeOptions& options) override;
  Transcript Align(const int16_t* pcm, size_t samples, const AlignRequest& request, const AbortFlag& abort) override;
  bool AddWord(const std::string& word, const std::string& phones) override;

 private:
  const int16_t* Dither(const int16_t* pcm, size_t samples);
  void SearchWhole(const int16_t* pcm, size_t samples);
  void SearchChunked(const int16_t* pcm, size_t samples, const AbortFlag& abort);
  Transcript Words();
  void AddPhoneWords();
  double PathScoreToLn(int32_t score);
  bool InDictionary(const std::string& word);
  struct KnownAlternative {
    std::vector<std::vector<std::string>> positions;
    double penalty;
  };
  std::vector<KnownAlternative> KnownAlternatives(const AlignSlot& slot);


 private:
  std::string name_;
  int sampleRate_;
  int frameRate_ = 100;
  int frameShift_ = 160;
  int ncep_ = 13;
  int cmnMode_ = 1;  // 1: batch CMN done here; 2: none; 0: the decoder's own live CMN
  cmd_ln_s* config_ = nullptr;
  ps_decoder_s* ps_ = nullptr;
  std::vector<float> cep_;      // per-utterance cepstra, reused between utterances
  std::vector<float*> rows_;
  std::vector<int16_t> dithered_;  // per-utterance copy of the input with ±1 LSB dither
  bool hasLm_ = false;             // a language model or grammar search was configured
  std::vector<std::string> phoneWords_;  // "@aa" ... : one dictionary word per phone, for unknown words
};

}  // namespace voxdex
