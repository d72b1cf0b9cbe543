// The engine interface: everything the addon needs from a speech recognizer. PocketSphinx is the first
// implementation (pocketsphinx_engine.{h,cc}); a second engine is one new file pair plus one line in
// engine.cc's CreateEngine. Engines trust their input: JavaScript validated it (src/asr/models.ts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace voxdex {

// What a model entry of models/registry.json resolves to.
struct ModelDesc {
  std::string name;
  std::string engine;      // "pocketsphinx"
  int sampleRate = 16000;  // the rate decode() expects
  std::string hmm;         // acoustic model directory
  std::string dict;        // pronunciation dictionary
  std::string lm;          // n-gram language model (may be empty when options name a grammar)
  std::vector<std::pair<std::string, std::string>> options;  // engine-specific flags, e.g. {"-beam","1e-60"}
};

struct Word {
  std::string text;   // filler and noise tokens removed, pronunciation variants stripped
  int64_t startMs;    // from the first sample of the utterance
  int64_t endMs;
  double confidence;  // posterior probability in [0, 1]
};

struct Transcript {
  std::vector<Word> words;
  int64_t frames = 0;  // acoustic frames searched
  double score = 0;    // Align(): the best path's log likelihood (natural log), transitions included
};

// Every failure leaves an engine as an EngineError whose code is one of src/errors.ts's codes:
// MODEL_LOAD_FAILED, ASR_FAILED or CANCELLED.
class EngineError : public std::runtime_error {
 public:
  EngineError(std::string code, const std::string& message) : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// A flag another thread raises (an Int32 in a SharedArrayBuffer); decode() polls it between chunks.
class AbortFlag {
 public:
  explicit AbortFlag(const int32_t* word = nullptr) : word_(word) {}
  bool Raised() const { return word_ != nullptr && __atomic_load_n(word_, __ATOMIC_ACQUIRE) != 0; }

 private:
  const int32_t* word_;
};

// A forced-alignment grammar: the words known to be in the audio, in order. Each slot is one written
// word; its alternatives are the ways it may have been said, each a sequence of dictionary words
// ("25" -> {"twenty", "five"} or {"two", "five"}); a position may offer choices "zero|oh". Choices
// missing from the dictionary are dropped; a slot left without alternatives is an unknown word, which
// a loop of one or more phones absorbs. Silence and fillers may come between any two words.
struct AlignSlot {
  std::vector<std::vector<std::string>> alternatives;
  // Per alternative (same order; missing = 0): a natural-log penalty added to the path that takes it.
  // A custom-vocabulary phrase offered beside the words heard is taken only where the audio fits it
  // better by more than its penalty (src/asr/moonshine/phrase-verify.ts).
  std::vector<double> penalties;
};

struct AlignRequest {
  std::vector<AlignSlot> slots;
};

struct DecodeOptions {
  // Reference mode: hand the engine the whole utterance in one call (no abort polling). Used by the
  // benchmarks to check that chunked decoding gives the same words.
  bool wholeUtterance = false;
};

// One loaded model plus its per-utterance decoding state. Not thread-safe: one engine per thread.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual int SampleRate() const = 0;
  // Decodes one utterance of 16-bit PCM at SampleRate() as a whole. Throws EngineError.
  virtual Transcript Decode(const int16_t* pcm, size_t samples, const AbortFlag& abort, const DecodeOptions& options) = 0;
  // Aligns known words against one utterance (forced alignment). Returns the path the search took:
  // dictionary words with their times, fillers removed; a phone of an unknown-word loop comes back as
  // the word "@" + phone ("@ah"). Engines that cannot align throw EngineError(ASR_FAILED).
  virtual Transcript Align(const int16_t* pcm, size_t samples, const AlignRequest& request, const AbortFlag& abort) {
    throw EngineError("ASR_FAILED", "this engine cannot align");
  }
  // Adds a word with its phones ("Z EH N T R IH K S") to the aligner's dictionary, for later Align()
  // calls. False when the phones are not the model's; true when added or already there.
  virtual bool AddWord(const std::string& word, const std::string& phones) { return false; }
};

// Creates the engine named by desc.engine. Throws EngineError (MODEL_LOAD_FAILED).
std::unique_ptr<Engine> CreateEngine(const ModelDesc& desc);

// Engine names CreateEngine knows.
std::vector<std::string> EngineNames();

}  // namespace voxdex
