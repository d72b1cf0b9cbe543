// Forced alignment with PocketSphinx: the known words of an utterance become a finite-state grammar
// (one path per way of saying each word, a phone loop for words the dictionary lacks), searched over
// the same front end and batch CMN as Decode(). PocketSphinx's FSG search adds optional silence and
// filler loops at every state itself (-fsgusefiller, -silprob, -fillprob), and alternative
// pronunciations of a dictionary word (-fsgusealtpron).
#include <pocketsphinx.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/logmath.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "pocketsphinx_engine.h"

namespace voxdex {
namespace {

// The CMU phone set of Debian's en-us model (and so of en-us-8k, adapted from it).
const char* const kPhones[] = {"AA", "AE", "AH", "AO", "AW", "AY", "B",  "CH", "D",  "DH", "EH", "ER", "EY",
                               "F",  "G",  "HH", "IH", "IY", "JH", "K",  "L",  "M",  "N",  "NG", "OW", "OY",
                               "P",  "R",  "S",  "SH", "T",  "TH", "UH", "UW", "V",  "W",  "Y",  "Z",  "ZH"};
constexpr const char* kSearch = "voxdex_align";
// Search scores are logmath values shifted right by this many bits (PocketSphinx's SENSCR_SHIFT).
constexpr int kScoreShift = 10;

}  // namespace

double PocketSphinxEngine::PathScoreToLn(int32_t score) {
  return logmath_log_to_ln(ps_get_logmath(ps_), 1) * static_cast<double>(score) * static_cast<double>(1 << kScoreShift);
}

void PocketSphinxEngine::AddPhoneWords() {
  for (const char* phone : kPhones) {
    std::string word = "@" + std::string(phone);
    for (auto& c : word) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    ps_add_word(ps_, word.c_str(), phone, TRUE);  // -1 when it exists already: fine
    phoneWords_.push_back(word);
  }
}

bool PocketSphinxEngine::InDictionary(const std::string& word) {
  char* pron = ps_lookup_word(ps_, word.c_str());
  if (pron == nullptr) return false;
  ckd_free(pron);
  return true;
}

// Each word position of an alternative may list choices separated by '|' ("zero|oh"). Choices the
// dictionary lacks are dropped; an alternative with a position left empty is dropped; a slot left
// with no alternative becomes an unknown word (phone loop).
bool PocketSphinxEngine::AddWord(const std::string& word, const std::string& phones) {
  if (InDictionary(word)) return true;
  return ps_add_word(ps_, word.c_str(), phones.c_str(), FALSE) >= 0;
}

std::vector<PocketSphinxEngine::KnownAlternative> PocketSphinxEngine::KnownAlternatives(const AlignSlot& slot) {
  std::vector<KnownAlternative> out;
  for (size_t a = 0; a < slot.alternatives.size(); ++a) {
    const auto& alt = slot.alternatives[a];
    std::vector<std::vector<std::string>> positions;
    bool ok = !alt.empty();
    for (const auto& w : alt) {
      std::vector<std::string> choices;
      size_t start = 0;
      while (start <= w.size()) {
        size_t bar = w.find('|', start);
        std::string c = w.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        if (!c.empty() && InDictionary(c)) choices.push_back(c);
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
      if (choices.empty()) ok = false;
      positions.push_back(std::move(choices));
    }
    if (ok) out.push_back({std::move(positions), a < slot.penalties.size() ? slot.penalties[a] : 0.0});
  }
  return out;
}

Transcript PocketSphinxEngine::Align(const int16_t* pcm, size_t samples, const AlignRequest& request, const AbortFlag& abort) {
  lastError.clear();
  if (abort.Raised()) throw EngineError("CANCELLED", "cancelled");
  if (hasLm_) throw EngineError("ASR_FAILED", "model " + name_ + ": an aligner is a model without a language model or grammar");
  if (request.slots.empty()) return Transcript{};
  std::vector<std::vector<KnownAlternative>> slots;
  for (const auto& slot : request.slots) slots.push_back(KnownAlternatives(slot));

  // States: 0 = start; each slot ends in a state of its own; alternatives of several words and the
  // phone loop use states in between.
  int32 states = 1;
  for (const auto& alts : slots) {
    states += 1;
    if (alts.empty()) states += 1;
    for (const auto& alt : alts) states += static_cast<int32>(alt.positions.size()) - 1;
  }
  logmath_t* lmath = ps_get_logmath(ps_);
  fsg_model_t* fsg = fsg_model_init(kSearch, lmath, cmd_ln_float32_r(config_, "-lw"), states);
  fsg->start_state = 0;
  int32 next = 1;
  int32 from = 0;
  const int32 certain = logmath_log(lmath, 1.0);
  for (const auto& alts : slots) {
    const int32 to = next++;
    if (alts.empty()) {
      const int32 loop = next++;
      const int32 each = logmath_log(lmath, 1.0 / static_cast<double>(phoneWords_.size()));
      for (const auto& p : phoneWords_) {
        int32 wid = fsg_model_word_add(fsg, p.c_str());
        fsg_model_trans_add(fsg, from, loop, each, wid);
        fsg_model_trans_add(fsg, loop, loop, each, wid);
      }
      fsg_model_null_trans_add(fsg, loop, to, certain);
    }
    const double choose = std::log(1.0 / static_cast<double>(std::max<size_t>(1, alts.size())));
    for (const auto& known : alts) {
      const auto& alt = known.positions;
      const int32 enter = logmath_ln_to_log(lmath, choose - known.penalty);
      int32 at = from;
      for (size_t i = 0; i < alt.size(); ++i) {
        int32 dest = i + 1 == alt.size() ? to : next++;
        for (const auto& choice : alt[i]) {
          fsg_model_trans_add(fsg, at, dest, i == 0 ? enter : certain, fsg_model_word_add(fsg, choice.c_str()));
        }
        at = dest;
      }
    }
    from = to;
  }
  fsg->final_state = from;

  int rv = ps_set_fsg(ps_, kSearch, fsg);  // the search keeps its own reference
  fsg_model_free(fsg);
  if (rv < 0 || ps_set_search(ps_, kSearch) < 0) {
    throw EngineError("ASR_FAILED", "model " + name_ + ": the alignment grammar was rejected (" + lastError + ")");
  }
  if (ps_start_stream(ps_) < 0) throw EngineError("ASR_FAILED", "model " + name_ + ": could not start a stream (" + lastError + ")");
  SearchChunked(Dither(pcm, samples), samples, abort);
  if (abort.Raised()) throw EngineError("CANCELLED", "cancelled");
  Transcript out = Words();
  int32 score = 0;
  if (ps_get_hyp(ps_, &score) != nullptr) out.score = PathScoreToLn(score);
  return out;
}

}  // namespace voxdex
