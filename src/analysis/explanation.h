// What a score or a recommendation rests on, for `--explain`: the inputs it read (with
// where each came from), the parts of its formula with their values, and the
// assumptions the model makes. Analyses fill it next to every number they output.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kraken {

struct ExplainItem {
  std::string name;
  double value = 0;
  std::string unit;  // "ratio", "s", "B/s", "GiB", ... or "" for a pure number
  std::string note;  // the basis of an input, or the formula of a term
};

struct Explanation {
  std::vector<ExplainItem> inputs;
  std::vector<ExplainItem> terms;
  std::vector<std::string> assumptions;

  void Input(std::string name, double value, std::string unit, std::string basis) {
    inputs.push_back({std::move(name), value, std::move(unit), std::move(basis)});
  }
  void Term(std::string name, double value, std::string unit, std::string formula) {
    terms.push_back({std::move(name), value, std::move(unit), std::move(formula)});
  }
  void Assume(std::string text) { assumptions.push_back(std::move(text)); }
  void Append(const Explanation& other) {
    inputs.insert(inputs.end(), other.inputs.begin(), other.inputs.end());
    terms.insert(terms.end(), other.terms.begin(), other.terms.end());
    assumptions.insert(assumptions.end(), other.assumptions.begin(), other.assumptions.end());
  }
};

}  // namespace kraken
