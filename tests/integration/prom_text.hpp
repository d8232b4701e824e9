#pragma once
// A strict reader of the Prometheus text exposition format (version 0.0.4),
// for the tests of linkaged's /metrics: it refuses what a Prometheus server
// would (a sample before its family's TYPE, a family split in two, a bad
// name, label or escape, a duplicate series, a histogram bucket without `le`),
// and fetches the page over plain HTTP.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace linkage::itest {

using Labels = std::map<std::string, std::string>;

struct PromSample {
  std::string name;  // as written: a histogram's carry _bucket, _sum, _count
  Labels labels;
  double value = 0;
};

struct PromFamily {
  std::string name, help, type;  // type: counter, gauge, histogram, summary or untyped
  std::vector<PromSample> samples;
};

struct Exposition {
  std::map<std::string, PromFamily> families;
  std::string error;  // empty: the page parsed; else the first fault and its line

  // The value of the sample named `name` with exactly `labels`; nullopt if there is none.
  std::optional<double> value(const std::string& name, const Labels& labels = {}) const;
  // Whether any sample of family `family` has label `label` equal to `value`.
  bool has_series(const std::string& family, const std::string& label, const std::string& value) const;
};

Exposition parse_prometheus_text(const std::string& text);

// The body of http://127.0.0.1:PORT/PATH, fetched with HTTP/1.0 within a few
// seconds; empty (and `error` says why) unless the answer was 200 in the text
// format's content type.
std::string http_get_metrics(int port, std::string* error, const std::string& path = "/metrics");

}  // namespace linkage::itest
