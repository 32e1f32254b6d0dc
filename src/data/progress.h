// How far the job got and how long the rest takes: the write rate from the
// intact samples' mtimes (unless a copy or restore set them all at once),
// or the operator's --rate; the bytes the rest needs against free space.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "data/analysis.h"

namespace gt {

/// No hidden-state pipeline writes faster than this (a forward pass of the
/// target model per sample); a copy of small files does.
constexpr double kMaxJobSamplesPerSecond = 100;

/// True when the mtimes look set by a copy or restore rather than by the
/// job: at least 20 of them, the central 90% within `max_span_s` seconds,
/// and either their order unrelated to the sample order (Spearman's rank
/// correlation below 0.5; a job writes roughly in index order) or a pace
/// over kMaxJobSamplesPerSecond (`cp -r` copies in inode order, which is
/// creation order, so order alone misses it). `mtimes` are in sample order;
/// `span_s` gets the central span.
bool mtimes_clustered(const std::vector<double>& mtimes, double& span_s, double max_span_s = 300);

/// True when the mtimes follow another order than the index closely (rank
/// correlation at least 0.95 with the files' order or their sizes, and at
/// least 0.2 above the index order's): a copy set them in the order it
/// copied, whatever its speed. Each vector is the same mtimes in that
/// order; a job's own writes follow the index.
bool copied_in_another_order(const std::vector<double>& by_index,
                             const std::vector<double>& by_file,
                             const std::vector<double>& by_size);

/// Fills r.progress from the good samples (scan file indices, in sample
/// order), r.resume_count and r.not_started.
void compute_progress(const DirScan& scan, const std::vector<uint32_t>& good,
                      const AnalysisOptions& opts, DataReport& r);

}  // namespace gt
