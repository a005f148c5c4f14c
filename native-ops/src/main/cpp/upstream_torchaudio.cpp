// Real-code corpus (issue 17 §5): operators whose behaviour is modelled on torchaudio's CPU operators
// as torchaudio ported them to the stable ABI.
//
// Behaviour modelled on github.com/pytorch/audio:
//   src/libtorchaudio/overdrive.cpp               @ 04350f8102775a41eb5db7e9cfe65fd77419b86a  (_overdrive_core_loop)
//   src/libtorchaudio/lfilter.cpp                 @ 04478f3e4fe924286d0809a49dcf597e1168b6cd  (_lfilter_core_loop)
//   src/libtorchaudio/forced_align/compute.cpp    @ a2324429974246439378ad3d3293ff5e09663094  (forced_align schema)
//   src/libtorchaudio/forced_align/cpu/compute.cpp @ 024909a55582d9796102e94f3f555da27d38dace (forced_align CPU)
//   src/libtorchaudio/_torchaudio.cpp             @ 37d2e7161b0d944296a2793eb0dadbd886ab0043  (is_align_available, cuda_version)
//   src/libtorchaudio/utils.h                     @ 06776f882fdb871fc8ec27f3693e09480f971c0a  (strided element access, max of a tensor)
//   src/libtorchaudio/stable/ops.h                @ 04350f8102775a41eb5db7e9cfe65fd77419b86a  (reading a one-element tensor)
// The code is ours. What is upstream's is the contract the corpus keeps: the schema strings, the
// dispatch keys, the checks each kernel makes and the ones it omits, the order of its arithmetic, and
// what it returns. No register_fake or register_autograd for these ops is found in torchaudio's Python
// (it calls the ops directly), so what is registered below is the whole contract.
// Left out: rnnt_loss (a workspace-based kernel of about 2000 lines).
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Dispatch_v2.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/core/TensorAccessor.h>

#include <limits>
#include <optional>
#include <tuple>
#include <vector>

namespace {

using torch::stable::Tensor;
using torch::headeronly::ScalarType;

template <typename T, size_t N>
using Strided = torch::headeronly::HeaderOnlyTensorAccessor<T, N>;

// Element access that follows the tensor's strides (upstream's kernels read their accessor-based
// arguments this way, so those ops accept non-contiguous inputs).
template <typename T, size_t N>
Strided<T, N> strided(const Tensor& t) {
  return Strided<T, N>(static_cast<T*>(t.data_ptr()), t.sizes().data(), t.strides().data());
}

// The one element of a one-element CPU tensor, read as T whatever the tensor's dtype is: upstream reads
// it through a T pointer without looking at the dtype, so an int32 length tensor read as int64 gives
// a wrong value. The corpus keeps that.
template <typename T>
T single_value(const Tensor& t) {
  STD_TORCH_CHECK(t.numel() == 1, "item requires single element tensor input");
  STD_TORCH_CHECK(t.is_cpu(), "unreachable");
  return t.const_data_ptr<T>()[0];
}

template <typename T>
T largest(const Tensor& t) {
  return single_value<T>(torch::stable::amax(t, {}));
}

// is_align_available and cuda_version (CompositeExplicitAutograd): this build has the aligner and no
// CUDA.
bool aligner_built() {
  return true;
}

std::optional<int64_t> built_cuda_version() {
  return std::nullopt;
}

// _overdrive_core_loop (CPU): the recursive part of torchaudio's overdrive effect. Per channel, in
// parallel over channels and in order over frames, a DC-blocking filter (pole 0.995) runs over temp,
// carrying its state in last_in and last_out, and the output mixes half the dry waveform with 0.75 of
// the filtered signal. The state and the output are written in place and returned, as the schema's
// (a!), (b!), (c!) say. Upstream checks nothing: not the shapes (channels and frames come from
// waveform alone), nor the devices, nor that the five tensors share a dtype; elements are read through
// strides. The arithmetic keeps upstream's order and types: the difference in scalar_t, then the
// 0.995 and the mix in double, narrowed on store.
template <typename scalar_t>
void overdrive_channels(
    Strided<scalar_t, 2> dry,
    Strided<scalar_t, 2> driven,
    Strided<scalar_t, 1> prev_in,
    Strided<scalar_t, 1> prev_out,
    Strided<scalar_t, 2> wet) {
  const int64_t channels = dry.size(0);
  const int64_t frames = dry.size(1);
  torch::stable::parallel_for(0, channels, 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      for (int64_t f = 0; f < frames; ++f) {
        prev_out[c] = driven[c][f] - prev_in[c] + 0.995 * prev_out[c];
        prev_in[c] = driven[c][f];
        wet[c][f] = dry[c][f] * 0.5 + prev_out[c] * 0.75;
      }
    }
  });
}

std::tuple<Tensor, Tensor, Tensor> overdrive_loop_cpu(
    Tensor waveform, Tensor temp, Tensor last_in, Tensor last_out, Tensor output_waveform) {
  const ScalarType dtype = waveform.scalar_type();
  THO_DISPATCH_V2(dtype, "overdrive_cpu", AT_WRAP([&] {
    overdrive_channels<scalar_t>(strided<scalar_t, 2>(waveform), strided<scalar_t, 2>(temp),
        strided<scalar_t, 1>(last_in), strided<scalar_t, 1>(last_out), strided<scalar_t, 2>(output_waveform));
  }), AT_FLOATING_TYPES);
  return {last_in, last_out, output_waveform};
}

// _lfilter_core_loop: the feedback half of an IIR filter. For every sample s of every (batch, channel)
// row, out[s + order - 1] = in[s] - sum over k of out[s + k] * coeff[channel][k], where out is the
// padded output written in place (schema (a!)) and returned.
//
// CPU kernel: checks that the three tensors are on CPU, contiguous and float or double (each on its
// own, so mixed float/double passes), that batch and channel counts of input and output agree and that
// the output is padded by exactly order - 1 samples; all checks carry no message. It does not check
// that the coefficients have one row per channel, and it reads every tensor as the input's dtype. It
// walks flat pointers, in parallel over rows, subtracting the terms in order k = 0, 1, ...
template <typename scalar_t>
void feedback_rows(const Tensor& windows, const Tensor& coeffs, Tensor& padded) {
  const int64_t batches = windows.size(0);
  const int64_t channels = windows.size(1);
  const int64_t in_len = windows.size(2);
  const int64_t out_len = padded.size(2);
  const int64_t order = coeffs.size(1);
  const scalar_t* in = static_cast<const scalar_t*>(windows.data_ptr());
  const scalar_t* coeff = static_cast<const scalar_t*>(coeffs.data_ptr());
  scalar_t* out = static_cast<scalar_t*>(padded.data_ptr());

  torch::stable::parallel_for(0, channels * batches, 1, [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const scalar_t* row_in = in + row * in_len;
      scalar_t* row_out = out + row * out_len;
      const scalar_t* row_coeff = coeff + (row % channels) * order;
      for (int64_t s = 0; s < in_len; ++s) {
        scalar_t value = row_in[s];
        for (int64_t k = 0; k < order; ++k) {
          value -= row_out[s + k] * row_coeff[k];
        }
        row_out[s + order - 1] = value;
      }
    }
  });
}

bool float_or_double(const Tensor& t) {
  return t.scalar_type() == ScalarType::Float || t.scalar_type() == ScalarType::Double;
}

Tensor lfilter_loop_cpu(Tensor windows, Tensor coeffs, Tensor padded) {
  STD_TORCH_CHECK(windows.is_cpu() && coeffs.is_cpu() && padded.is_cpu());
  STD_TORCH_CHECK(windows.is_contiguous() && coeffs.is_contiguous() && padded.is_contiguous());
  STD_TORCH_CHECK(float_or_double(windows) && float_or_double(coeffs) && float_or_double(padded));
  STD_TORCH_CHECK(windows.size(0) == padded.size(0));
  STD_TORCH_CHECK(windows.size(1) == padded.size(1));
  STD_TORCH_CHECK(windows.size(2) + coeffs.size(1) - 1 == padded.size(2));
  THO_DISPATCH_V2(
      windows.scalar_type(),
      "lfilter_core_loop",
      [&] { feedback_rows<scalar_t>(windows, coeffs, padded); },
      AT_FLOATING_TYPES);
  return padded;
}

// CompositeExplicitAutograd kernel (what meta and other backends run): the same recurrence in tensor
// ops, one sample at a time: the order-wide window of the output, batched-matmul with the coefficients
// as a column, subtracted from the input sample and copied into the output's next slot. No checks.
Tensor lfilter_loop_by_tensor_ops(Tensor windows, Tensor coeffs, Tensor padded) {
  const int64_t in_len = windows.size(2);
  const int64_t order = coeffs.size(1);
  const Tensor coeff_column = torch::stable::unsqueeze(coeffs, 2);
  for (int64_t s = 0; s < in_len; ++s) {
    const Tensor recent = torch::stable::transpose(torch::stable::narrow(padded, 2, s, order), 0, 1);
    const Tensor feedback = torch::stable::transpose(
        torch::stable::squeeze(torch::stable::matmul(recent, coeff_column), 2), 0, 1);
    const Tensor value = torch::stable::subtract(torch::stable::select(windows, 2, s), feedback);
    Tensor slot = torch::stable::select(padded, 2, s + order - 1);
    torch::stable::copy_(slot, value);
  }
  return padded;
}

// forced_align (CPU): the Viterbi path of a CTC alignment (upstream credits flashlight's CTC
// criterion) of batch 0's targets against batch 0's log-probabilities, one label per frame.
// States are the targets with a blank before, between and after them (2L + 1 states). Two rows of
// scores (frame parity) in scalar_t and one int8 back-pointer per (frame, state) hold the search; at
// each frame a state keeps the best of staying, advancing one state, or skipping a blank between two
// different labels (ties prefer staying, then advancing). The window of reachable states opens and
// closes as upstream's does, given the number R of repeated neighbours. The path is traced back from
// the better of the last two states.
//
// Upstream's checks are kept, in its order and words; what it does not check is kept too: the length
// tensors' dtypes (their maximum is read as int64 whatever they hold). It returns (paths, log_probs):
// the second output IS the input, although the schema declares no alias.
template <typename scalar_t, typename target_t>
void viterbi_path(const Tensor& log_probs, const Tensor& targets, int64_t blank, Tensor& paths) {
  const scalar_t minus_inf = -std::numeric_limits<scalar_t>::infinity();
  const auto frames = log_probs.size(1);
  const auto labels = targets.size(1);
  const auto states = 2 * labels + 1;
  const auto lp = strided<scalar_t, 3>(log_probs);
  const auto tgt = strided<target_t, 2>(targets);
  auto out = strided<target_t, 2>(paths);
  const auto label_of = [&](auto state) -> int64_t {
    return state % 2 == 0 ? blank : tgt[0][state / 2];
  };

  std::vector<scalar_t> score(2 * states, minus_inf);
  std::vector<int8_t> back(frames * states, -1);

  int repeats = 0;
  for (int k = 1; k < labels; ++k) {
    repeats += tgt[0][k] == tgt[0][k - 1] ? 1 : 0;
  }
  STD_TORCH_CHECK(
      frames >= labels + repeats,
      "targets length is too long for CTC. Found log_probs length: ", frames,
      ", targets length: ", labels, ", and number of repeats: ", repeats);

  int lo = frames - (labels + repeats) > 0 ? 0 : 1;
  int hi = states == 1 ? 1 : 2;
  for (int s = lo; s < hi; ++s) {
    score[s] = lp[0][0][label_of(s)];
  }

  for (int t = 1; t < frames; ++t) {
    if (frames - t <= labels + repeats) {
      const bool skip_blank = lo % 2 == 1 && tgt[0][lo / 2] != tgt[0][lo / 2 + 1];
      lo += skip_blank ? 2 : 1;
    }
    if (t <= labels + repeats) {
      const bool reach_label = hi % 2 == 0 && hi < 2 * labels && tgt[0][hi / 2 - 1] != tgt[0][hi / 2];
      hi += reach_label ? 2 : 1;
    }
    scalar_t* now = score.data() + (t % 2) * states;
    const scalar_t* before = score.data() + ((t - 1) % 2) * states;
    int8_t* back_now = back.data() + t * states;
    for (int64_t s = 0; s < states; ++s) {
      now[s] = minus_inf;
    }
    int s = lo;
    if (lo == 0) {
      now[0] = before[0] + lp[0][t][blank];
      back_now[0] = 0;
      ++s;
    }
    for (; s < hi; ++s) {
      const scalar_t stay = before[s];
      const scalar_t advance = before[s - 1];
      scalar_t skip = minus_inf;
      if (s % 2 != 0 && s != 1 && tgt[0][s / 2] != tgt[0][s / 2 - 1]) {
        skip = before[s - 2];
      }
      scalar_t best;
      if (skip > advance && skip > stay) {
        best = skip;
        back_now[s] = 2;
      } else if (advance > stay) {
        best = advance;
        back_now[s] = 1;
      } else {
        best = stay;
        back_now[s] = 0;
      }
      now[s] = best + lp[0][t][label_of(s)];
    }
  }

  const scalar_t* final_row = score.data() + ((frames - 1) % 2) * states;
  auto state = final_row[states - 1] > final_row[states - 2] ? states - 1 : states - 2;
  for (auto t = frames - 1; t >= 0; --t) {
    out[0][t] = label_of(state);
    state -= back[t * states + state];
  }
}

// The label dtype was checked to be int64 or int32 before this is called.
template <typename scalar_t>
void viterbi_path_for_labels(const Tensor& log_probs, const Tensor& targets, int64_t blank, Tensor& paths) {
  if (targets.scalar_type() == ScalarType::Long) {
    viterbi_path<scalar_t, int64_t>(log_probs, targets, blank, paths);
  } else {
    viterbi_path<scalar_t, int32_t>(log_probs, targets, blank, paths);
  }
}

std::tuple<Tensor, Tensor> align_cpu(
    Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int64_t blank) {
  STD_TORCH_CHECK(log_probs.is_cpu(), "log_probs must be a CPU tensor");
  STD_TORCH_CHECK(targets.is_cpu(), "targets must be a CPU tensor");
  STD_TORCH_CHECK(input_lengths.is_cpu(), "input_lengths must be a CPU tensor");
  STD_TORCH_CHECK(target_lengths.is_cpu(), "target_lengths must be a CPU tensor");
  const ScalarType score_type = log_probs.scalar_type();
  STD_TORCH_CHECK(
      score_type == ScalarType::Double || score_type == ScalarType::Float || score_type == ScalarType::Half,
      "log_probs must be float64, float32 or float16 (half) type");
  const ScalarType label_type = targets.scalar_type();
  STD_TORCH_CHECK(
      label_type == ScalarType::Int || label_type == ScalarType::Long, "targets must be int32 or int64 type");
  STD_TORCH_CHECK(log_probs.is_contiguous(), "log_probs must be contiguous");
  STD_TORCH_CHECK(targets.is_contiguous(), "targets must be contiguous");
  STD_TORCH_CHECK(log_probs.dim() == 3, "log_probs must be 3-D (batch_size, input length, num classes)");
  STD_TORCH_CHECK(targets.dim() == 2, "targets must be 2-D (batch_size, target length,)");
  STD_TORCH_CHECK(input_lengths.dim() == 1, "input_lengths must be 1-D (batch_size,)");
  STD_TORCH_CHECK(target_lengths.dim() == 1, "target_lengths must be 1-D (batch_size,)");
  STD_TORCH_CHECK(
      log_probs.size(0) == 1, "The batch dimension for log_probs must be 1 at the current version.");
  STD_TORCH_CHECK(
      targets.size(0) == 1, "The batch dimension for targets must be 1 at the current version.");
  STD_TORCH_CHECK(blank >= 0 && blank < log_probs.size(-1), "blank must be within [0, num classes)");
  STD_TORCH_CHECK(log_probs.size(1) == largest<int64_t>(input_lengths), "input length mismatch");
  STD_TORCH_CHECK(targets.size(1) == largest<int64_t>(target_lengths), "target length mismatch");

  Tensor paths = torch::stable::empty({log_probs.size(0), log_probs.size(1)}, label_type);
  torch::stable::zero_(paths);
  THO_DISPATCH_V2(
      score_type,
      "forced_align",
      AT_WRAP([&] { viterbi_path_for_labels<scalar_t>(log_probs, targets, blank, paths); }),
      AT_EXPAND(AT_FLOATING_TYPES),
      ScalarType::Half);
  return {paths, log_probs};
}

} // namespace

// Registrations, in upstream's order.
STABLE_TORCH_LIBRARY(_torchaudio, m) {
  m.def("is_align_available() -> bool");
  m.def("cuda_version() -> int?");
}

STABLE_TORCH_LIBRARY_IMPL(_torchaudio, CompositeExplicitAutograd, m) {
  m.impl("is_align_available", TORCH_BOX(&aligner_built));
  m.impl("cuda_version", TORCH_BOX(&built_cuda_version));
}

STABLE_TORCH_LIBRARY_FRAGMENT(torchaudio, m) {
  m.def(
      "_overdrive_core_loop(Tensor waveform,"
      "Tensor temp,"
      "Tensor(a!) last_in,"
      "Tensor(b!) last_out,"
      "Tensor(c!) output_waveform) -> (Tensor(a!), Tensor(b!), Tensor(c!))");
}

STABLE_TORCH_LIBRARY_IMPL(torchaudio, CPU, m) {
  m.impl("_overdrive_core_loop", TORCH_BOX(&overdrive_loop_cpu));
}

STABLE_TORCH_LIBRARY_FRAGMENT(torchaudio, m) {
  m.def(
      "_lfilter_core_loop("
      "Tensor input_signal_windows,"
      "Tensor a_coeff_flipped,"
      "Tensor(a!) padded_output_waveform) -> Tensor(a!)");
}

STABLE_TORCH_LIBRARY_IMPL(torchaudio, CPU, m) {
  m.impl("_lfilter_core_loop", TORCH_BOX(&lfilter_loop_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(torchaudio, CompositeExplicitAutograd, m) {
  m.impl("_lfilter_core_loop", TORCH_BOX(&lfilter_loop_by_tensor_ops));
}

STABLE_TORCH_LIBRARY_FRAGMENT(torchaudio, m) {
  m.def(
      "forced_align(Tensor log_probs,"
      "Tensor targets,"
      "Tensor input_lengths,"
      "Tensor target_lengths,"
      "int blank) -> (Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(torchaudio, CPU, m) {
  m.impl("forced_align", TORCH_BOX(&align_cpu));
}
