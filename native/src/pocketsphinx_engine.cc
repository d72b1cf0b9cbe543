// PocketSphinx engine. Decoding feeds one utterance in ~0.5 s chunks so the abort flag is polled
// while the search runs, yet results match whole-utterance decoding: the front end runs over the
// whole utterance first, the cepstral mean of the whole utterance is subtracted here (what the
// model's "-cmn batch" does in full-utterance mode), and the decoder's own CMN is switched off.
#include "pocketsphinx_engine.h"

#include <pocketsphinx.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/err.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/logmath.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace voxdex {

// PocketSphinx logs through one process-global callback. Keep quiet (no stdout/stderr), but remember
// the last error lines of the current thread so load failures can say why.
thread_local std::string lastError;

namespace {

constexpr int kChunkFrames = 50;  // frames searched between abort checks (0.5 s of audio)

void LogCallback(void*, err_lvl_t level, const char* fmt, ...) {
  if (level < ERR_WARN) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::string line(buf);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return;
  if (level == ERR_WARN) return;  // warnings (e.g. unknown words in the LM) are not failures
  if (level == ERR_FATAL) {
    // The library calls exit() right after this. Say why on stderr: src/asr/binding.ts vets every
    // model in a child process first and reports this line as MODEL_LOAD_FAILED.
    fprintf(stderr, "%s\n", line.c_str());
    fflush(stderr);
  }
  lastError = lastError.empty() ? line : (lastError.size() > 600 ? line : lastError + "; " + line);
}

void QuietLogging() {
  static std::once_flag once;
  std::call_once(once, [] {
    err_set_logfp(nullptr);  // also silences what is printed straight to the log file (the config table)
    err_set_callback(LogCallback, nullptr);
  });
}

bool IsFiller(const char* w) {  // also "(NULL)", a grammar's empty transition
  return w == nullptr || w[0] == '\0' || w[0] == '<' || w[0] == '[' || w[0] == '(' || (w[0] == '+' && w[1] == '+');
}

std::string StripVariant(const char* w) {  // "read(2)" -> "read"
  std::string s(w);
  size_t paren = s.find('(');
  if (paren != std::string::npos && paren > 0 && s.back() == ')') s.resize(paren);
  return s;
}

}  // namespace

PocketSphinxEngine::PocketSphinxEngine(const ModelDesc& desc) : name_(desc.name), sampleRate_(desc.sampleRate) {
  QuietLogging();
  lastError.clear();
  std::vector<std::string> args = {"-hmm", desc.hmm, "-dict", desc.dict, "-samprate", std::to_string(desc.sampleRate)};
  hasLm_ = !desc.lm.empty();
  for (const auto& [key, value] : desc.options) {
    if (key == "-jsgf" || key == "-fsg" || key == "-kws" || key == "-keyphrase" || key == "-allphone") hasLm_ = true;
  }
  if (!desc.lm.empty()) {
    args.push_back("-lm");
    args.push_back(desc.lm);
  }
  for (const auto& [key, value] : desc.options) {
    args.push_back(key);
    args.push_back(value);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  config_ = cmd_ln_parse_r(nullptr, ps_args(), static_cast<int32>(argv.size()), argv.data(), TRUE);
  if (config_ == nullptr) {
    throw EngineError("MODEL_LOAD_FAILED", "model " + name_ + ": invalid PocketSphinx options" +
                                               (lastError.empty() ? "" : " (" + lastError + ")"));
  }
  ps_ = ps_init(config_);
  if (ps_ == nullptr) {
    std::string why = lastError.empty() ? "unknown reason" : lastError;
    cmd_ln_free_r(config_);
    config_ = nullptr;
    throw EngineError("MODEL_LOAD_FAILED", "model " + name_ + ": PocketSphinx could not load hmm=" + desc.hmm +
                                               " dict=" + desc.dict + " lm=" + desc.lm + " (" + why + ")");
  }
  // ps_init read the model's feat.params: use the values it settled on.
  frameRate_ = cmd_ln_int32_r(config_, "-frate");
  frameShift_ = std::max(1, sampleRate_ / std::max(1, frameRate_));
  ncep_ = fe_get_output_size(ps_get_fe(ps_));
  feat_t* feat = ps_get_feat(ps_);
  if (feat->cmn != CMN_BATCH && feat->cmn != CMN_NONE) {
    // Live CMN adapts as it goes and would differ between chunked and whole decoding; keep it.
    cmnMode_ = 0;
  } else {
    cmnMode_ = feat->cmn == CMN_BATCH ? 1 : 2;
    feat->cmn = CMN_NONE;  // CMN is done here, over the whole utterance
  }
  if (!hasLm_) AddPhoneWords();  // an aligner: no search until Align() sets one
}

PocketSphinxEngine::~PocketSphinxEngine() {
  if (ps_ != nullptr) ps_free(ps_);
  if (config_ != nullptr) cmd_ln_free_r(config_);
}

Transcript PocketSphinxEngine::Decode(const int16_t* pcm, size_t samples, const AbortFlag& abort,
                                      const DecodeOptions& options) {
  lastError.clear();
  if (abort.Raised()) throw EngineError("CANCELLED", "cancelled");
  // Every utterance is a stream of its own. The front end's noise estimate (-remove_noise, on by
  // default) lives in the stream, not the utterance: ps_start_utt/fe_start_utt keep it, so without
  // this the words of an utterance depended on what the thread decoded before it (measured: different
  // words for the same audio decoded in another order). ps_start_stream resets it (fe_start_stream).
  if (ps_start_stream(ps_) < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": could not start a stream (" + lastError + ")");
  pcm = Dither(pcm, samples);
  if (options.wholeUtterance) {
    SearchWhole(pcm, samples);
  } else {
    SearchChunked(pcm, samples, abort);
  }
  if (abort.Raised()) throw EngineError("CANCELLED", "cancelled");
  return Words();
}

// Adds -1/0/+1 LSB of noise from a generator re-seeded for every utterance (so the same audio always
// gives the same words). Without it runs of digital silence (G.711 idle, padding) have zero energy,
// their cepstra are far out of range and the utterance's cepstral mean is dragged with them.
const int16_t* PocketSphinxEngine::Dither(const int16_t* pcm, size_t samples) {
  dithered_.resize(samples);
  uint32_t state = 0x9E3779B9u;
  for (size_t i = 0; i < samples; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    int v = pcm[i] + static_cast<int>(state % 3u) - 1;
    dithered_[i] = static_cast<int16_t>(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
  }
  return dithered_.data();
}

void PocketSphinxEngine::SearchWhole(const int16_t* pcm, size_t samples) {
  feat_t* feat = ps_get_feat(ps_);
  cmn_type_t saved = feat->cmn;
  if (cmnMode_ == 1) feat->cmn = CMN_BATCH;
  int rv = ps_start_utt(ps_);
  if (rv >= 0) rv = ps_process_raw(ps_, reinterpret_cast<const int16*>(pcm), samples, FALSE, TRUE);
  int end = ps_end_utt(ps_);
  feat->cmn = saved;
  if (rv < 0 || end < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": decoding failed (" + lastError + ")");
}

void PocketSphinxEngine::SearchChunked(const int16_t* pcm, size_t samples, const AbortFlag& abort) {
  // 1. Front end over the whole utterance.
  fe_t* fe = ps_get_fe(ps_);
  size_t capacity = samples / static_cast<size_t>(frameShift_) + 4;
  cep_.resize(capacity * static_cast<size_t>(ncep_));
  rows_.resize(capacity);
  for (size_t i = 0; i < capacity; ++i) rows_[i] = cep_.data() + i * static_cast<size_t>(ncep_);
  if (fe_start_utt(fe) < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": front end failed to start");
  const int16* in = reinterpret_cast<const int16*>(pcm);
  size_t left = samples;
  int32 nframes = 0;
  while (left > 0 && static_cast<size_t>(nframes) + 1 < capacity) {
    int32 got = static_cast<int32>(capacity - 1 - static_cast<size_t>(nframes));
    int32 frameIndex = 0;
    size_t before = left;
    if (fe_process_frames(fe, &in, &left, rows_.data() + nframes, &got, &frameIndex) < 0) {
      throw EngineError("ASR_FAILED", "model " + name_ + ": front end failed (" + lastError + ")");
    }
    nframes += got;
    if (got == 0 && left == before) break;
  }
  int32 tail = 0;
  fe_end_utt(fe, rows_[static_cast<size_t>(nframes)], &tail);
  nframes += tail;

  // 2. Batch cepstral mean normalisation over the whole utterance.
  if (cmnMode_ == 1 && nframes > 0) {
    std::vector<double> mean(static_cast<size_t>(ncep_), 0.0);
    for (int32 f = 0; f < nframes; ++f)
      for (int c = 0; c < ncep_; ++c) mean[c] += rows_[f][c];
    for (int c = 0; c < ncep_; ++c) mean[c] /= nframes;
    for (int32 f = 0; f < nframes; ++f)
      for (int c = 0; c < ncep_; ++c) rows_[f][c] -= static_cast<float>(mean[c]);
  }

  // 3. Search, one utterance, polling the abort flag between chunks.
  if (ps_start_utt(ps_) < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": could not start an utterance (" + lastError + ")");
  for (int32 f = 0; f < nframes; f += kChunkFrames) {
    if (abort.Raised()) {
      ps_end_utt(ps_);
      throw EngineError("CANCELLED", "cancelled");
    }
    int n = std::min<int32>(kChunkFrames, nframes - f);
    if (ps_process_cep(ps_, reinterpret_cast<mfcc_t**>(rows_.data() + f), n, FALSE, FALSE) < 0) {
      ps_end_utt(ps_);
      throw EngineError("ASR_FAILED", "model " + name_ + ": search failed (" + lastError + ")");
    }
  }
  if (abort.Raised()) {
    ps_end_utt(ps_);
    throw EngineError("CANCELLED", "cancelled");
  }
  if (ps_end_utt(ps_) < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": could not finish the utterance (" + lastError + ")");
}

Transcript PocketSphinxEngine::Words() {
  Transcript out;
  out.frames = ps_get_n_frames(ps_);
  logmath_t* lmath = ps_get_logmath(ps_);
  for (ps_seg_t* seg = ps_seg_iter(ps_); seg != nullptr; seg = ps_seg_next(seg)) {
    const char* w = ps_seg_word(seg);
    if (IsFiller(w)) continue;
    int sf = 0, ef = 0;
    ps_seg_frames(seg, &sf, &ef);
    int32 ascr = 0, lscr = 0, lback = 0;
    int32 post = ps_seg_prob(seg, &ascr, &lscr, &lback);
    double conf = logmath_exp(lmath, post);
    if (!(conf >= 0.0)) conf = 0.0;
    if (conf > 1.0) conf = 1.0;
    out.words.push_back(Word{StripVariant(w), static_cast<int64_t>(sf) * 1000 / frameRate_,
                             static_cast<int64_t>(ef + 1) * 1000 / frameRate_, conf});
  }
  return out;
}

}  // namespace voxdex
