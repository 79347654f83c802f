#include "config/suggest.h"

#include <algorithm>
#include <cctype>

namespace simtlab::config {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      size_t sub = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({up + 1, row[j - 1] + 1, sub});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool ends_with_component(std::string_view cand, std::string_view word) {
  if (cand.size() <= word.size() || !cand.ends_with(word)) return false;
  return cand[cand.size() - word.size() - 1] == '.';
}

}  // namespace

std::optional<std::string> nearest(std::string_view word,
                                   const std::vector<std::string>& candidates) {
  const std::string w = lower(word);
  std::optional<std::string> suffix_match;
  size_t suffix_matches = 0;
  for (const std::string& c : candidates) {
    if (ends_with_component(lower(c), w)) {
      ++suffix_matches;
      suffix_match = c;
    }
  }
  if (suffix_matches == 1) return suffix_match;

  const size_t limit = std::max<size_t>(2, w.size() / 3);
  std::optional<std::string> best;
  size_t best_d = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(w, lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace simtlab::config
