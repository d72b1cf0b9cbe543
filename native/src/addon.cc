// Exports only. JavaScript (src/asr/) validates every argument before it gets here; this layer
// reads them with typed getters and turns EngineError into a JS Error carrying `code`.
//
//   new Recognizer({ name, engine, sampleRate, hmm, dict, lm, options: [[flag, value], ...] })
//   recognizer.decode(samples: Int16Array, abort?: Int32Array, whole?: boolean)
//     -> { frames, words: [{ word, start, end, confidence }] }   (start/end in milliseconds)
//   recognizer.align(samples: Int16Array, slots: string[][][], abort?: Int32Array, penalties?: number[][])
//     -> the same shape plus `score` (the path's natural-log likelihood): the aligned path (slot ->
//        alternatives -> dictionary words; [] = unknown word); penalties: slot -> alternative -> nats
//   recognizer.addWord(word: string, phones: string) -> boolean   (a word for later alignments)
//   engines() -> string[]
//   memoryFile(name: string) -> number   a memfd descriptor (memory_file.h); throws an Error with the errno text
//   threadCpuMs() -> number              CPU milliseconds of the calling thread (thread_clock.h); -1 without the clock
#include <napi.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "engine.h"
#include "memory_file.h"
#include "thread_clock.h"

namespace {

Napi::Error ToJsError(Napi::Env env, const std::string& code, const std::string& message) {
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err;
}

class Recognizer : public Napi::ObjectWrap<Recognizer> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Recognizer",
                       {InstanceMethod<&Recognizer::Decode>("decode"), InstanceMethod<&Recognizer::Align>("align"),
                        InstanceMethod<&Recognizer::AddWord>("addWord"),
                        InstanceAccessor<&Recognizer::SampleRate>("sampleRate")});
  }

  explicit Recognizer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Recognizer>(info) {
    Napi::Object o = info[0].As<Napi::Object>();
    voxdex::ModelDesc desc;
    desc.name = o.Get("name").As<Napi::String>().Utf8Value();
    desc.engine = o.Get("engine").As<Napi::String>().Utf8Value();
    desc.sampleRate = o.Get("sampleRate").As<Napi::Number>().Int32Value();
    desc.hmm = o.Get("hmm").As<Napi::String>().Utf8Value();
    desc.dict = o.Get("dict").As<Napi::String>().Utf8Value();
    desc.lm = o.Get("lm").As<Napi::String>().Utf8Value();
    Napi::Array options = o.Get("options").As<Napi::Array>();
    for (uint32_t i = 0; i < options.Length(); ++i) {
      Napi::Array pair = options.Get(i).As<Napi::Array>();
      desc.options.emplace_back(pair.Get(0u).As<Napi::String>().Utf8Value(), pair.Get(1u).As<Napi::String>().Utf8Value());
    }
    try {
      engine_ = voxdex::CreateEngine(desc);
    } catch (const voxdex::EngineError& e) {
      throw ToJsError(info.Env(), e.code(), e.what());
    } catch (const std::exception& e) {
      throw ToJsError(info.Env(), "MODEL_LOAD_FAILED", std::string("model ") + desc.name + ": " + e.what());
    }
  }

 private:
  Napi::Value SampleRate(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), engine_->SampleRate()); }

  // Synchronous: called inside a piscina worker thread, which owns this recognizer.
  Napi::Value Decode(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::TypedArrayOf<int16_t> samples = info[0].As<Napi::TypedArrayOf<int16_t>>();
    const int32_t* abortWord = nullptr;
    if (info.Length() > 1 && info[1].IsTypedArray()) abortWord = info[1].As<Napi::TypedArrayOf<int32_t>>().Data();
    voxdex::DecodeOptions options;
    options.wholeUtterance = info.Length() > 2 && info[2].ToBoolean().Value();
    voxdex::Transcript t;
    try {
      t = engine_->Decode(samples.Data(), samples.ElementLength(), voxdex::AbortFlag(abortWord), options);
    } catch (const voxdex::EngineError& e) {
      throw ToJsError(env, e.code(), e.what());
    } catch (const std::exception& e) {
      throw ToJsError(env, "ASR_FAILED", e.what());
    }
    return ToJs(env, t);
  }

  Napi::Value Align(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::TypedArrayOf<int16_t> samples = info[0].As<Napi::TypedArrayOf<int16_t>>();
    Napi::Array slots = info[1].As<Napi::Array>();
    const int32_t* abortWord = nullptr;
    if (info.Length() > 2 && info[2].IsTypedArray()) abortWord = info[2].As<Napi::TypedArrayOf<int32_t>>().Data();
    Napi::Array penalties = info.Length() > 3 && info[3].IsArray() ? info[3].As<Napi::Array>() : Napi::Array::New(env, 0);
    voxdex::AlignRequest request;
    request.slots.resize(slots.Length());
    for (uint32_t i = 0; i < slots.Length(); ++i) {
      Napi::Array alts = slots.Get(i).As<Napi::Array>();
      for (uint32_t j = 0; j < alts.Length(); ++j) {
        Napi::Array words = alts.Get(j).As<Napi::Array>();
        std::vector<std::string> alt;
        for (uint32_t k = 0; k < words.Length(); ++k) alt.push_back(words.Get(k).As<Napi::String>().Utf8Value());
        request.slots[i].alternatives.push_back(std::move(alt));
      }
      if (i < penalties.Length() && penalties.Get(i).IsArray()) {
        Napi::Array p = penalties.Get(i).As<Napi::Array>();
        for (uint32_t j = 0; j < p.Length(); ++j) request.slots[i].penalties.push_back(p.Get(j).As<Napi::Number>().DoubleValue());
      }
    }
    voxdex::Transcript t;
    try {
      t = engine_->Align(samples.Data(), samples.ElementLength(), request, voxdex::AbortFlag(abortWord));
    } catch (const voxdex::EngineError& e) {
      throw ToJsError(env, e.code(), e.what());
    } catch (const std::exception& e) {
      throw ToJsError(env, "ASR_FAILED", e.what());
    }
    return ToJs(env, t);
  }

  Napi::Value AddWord(const Napi::CallbackInfo& info) {
    std::string word = info[0].As<Napi::String>().Utf8Value();
    std::string phones = info[1].As<Napi::String>().Utf8Value();
    return Napi::Boolean::New(info.Env(), engine_->AddWord(word, phones));
  }

  static Napi::Value ToJs(Napi::Env env, const voxdex::Transcript& t) {
    Napi::Array words = Napi::Array::New(env, t.words.size());
    for (size_t i = 0; i < t.words.size(); ++i) {
      Napi::Object w = Napi::Object::New(env);
      w.Set("word", t.words[i].text);
      w.Set("start", static_cast<double>(t.words[i].startMs));
      w.Set("end", static_cast<double>(t.words[i].endMs));
      w.Set("confidence", t.words[i].confidence);
      words.Set(static_cast<uint32_t>(i), w);
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("frames", static_cast<double>(t.frames));
    result.Set("score", t.score);
    result.Set("words", words);
    return result;
  }

  std::unique_ptr<voxdex::Engine> engine_;
};

Napi::Value Engines(const Napi::CallbackInfo& info) {
  auto names = voxdex::EngineNames();
  Napi::Array out = Napi::Array::New(info.Env(), names.size());
  for (size_t i = 0; i < names.size(); ++i) out.Set(static_cast<uint32_t>(i), names[i]);
  return out;
}

Napi::Value MemoryFile(const Napi::CallbackInfo& info) {
  int fd = voxdex::CreateMemoryFile(info[0].As<Napi::String>().Utf8Value().c_str());
  if (fd < 0) throw ToJsError(info.Env(), "INTERNAL", std::string("memfd_create: ") + std::strerror(errno));
  return Napi::Number::New(info.Env(), fd);
}

Napi::Value ThreadCpuMs(const Napi::CallbackInfo& info) {
  int64_t ns = voxdex::ThreadCpuNanoseconds();
  return Napi::Number::New(info.Env(), ns < 0 ? -1.0 : static_cast<double>(ns) / 1e6);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Recognizer", Recognizer::Define(env));
  exports.Set("engines", Napi::Function::New<Engines>(env, "engines"));
  exports.Set("memoryFile", Napi::Function::New<MemoryFile>(env, "memoryFile"));
  exports.Set("threadCpuMs", Napi::Function::New<ThreadCpuMs>(env, "threadCpuMs"));
  return exports;
}

}  // namespace

NODE_API_MODULE(voxdex_asr, Init)
