//===- GraphEinsum.cpp - einsum equations ---------------------------------===//

#include "dialects/Graph/GraphEinsum.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;

namespace graphc::graph {

static FailureOr<EinsumTerm> parseTerm(const TypeInference &infer,
                                       StringRef text) {
  EinsumTerm term;
  term.spelling = text.str();
  while (!text.empty()) {
    if (text.starts_with("...")) {
      if (term.ellipsisAt >= 0)
        return infer.emitError("einsum term '" + term.spelling +
                               "' has more than one '...'");
      term.ellipsisAt = term.letters.size();
      text = text.drop_front(3);
      continue;
    }
    char c = text.front();
    if (!llvm::isAlpha(c))
      return infer.emitError("invalid character '" + Twine(c) +
                             "' in einsum equation");
    term.letters.push_back(c);
    text = text.drop_front();
  }
  return term;
}

FailureOr<EinsumEquation> parseEinsumEquation(const TypeInference &infer,
                                              StringRef equation,
                                              size_t numInputs) {
  std::string compact;
  for (char c : equation)
    if (!llvm::isSpace(c))
      compact.push_back(c);
  StringRef text = compact;
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  if (rhs.contains("->"))
    return infer.emitError("einsum equation has more than one '->'");
  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != numInputs)
    return infer.emitError("einsum equation has " + Twine(termTexts.size()) +
                           " input terms but the op has " + Twine(numInputs) +
                           " operands");
  EinsumEquation result;
  std::map<char, int> uses;
  bool anyEllipsis = false;
  for (StringRef termText : termTexts) {
    FailureOr<EinsumTerm> term = parseTerm(infer, termText);
    if (failed(term))
      return failure();
    for (char c : term->letters)
      ++uses[c];
    anyEllipsis |= term->ellipsisAt >= 0;
    result.inputs.push_back(std::move(*term));
  }
  if (!explicitOutput) {
    if (anyEllipsis)
      result.output.ellipsisAt = 0;
    for (auto [letter, count] : uses)
      if (count == 1)
        result.output.letters.push_back(letter);
    result.output.spelling = (anyEllipsis ? "..." : "") + result.output.letters;
    return result;
  }
  FailureOr<EinsumTerm> output = parseTerm(infer, rhs);
  if (failed(output))
    return failure();
  std::string seen;
  for (char c : output->letters) {
    if (!uses.count(c))
      return infer.emitError("einsum output label '" + Twine(c) +
                             "' does not appear in any input");
    if (seen.find(c) != std::string::npos)
      return infer.emitError("einsum output repeats label '" + Twine(c) + "'");
    seen.push_back(c);
  }
  result.output = std::move(*output);
  return result;
}

} // namespace graphc::graph
