//===- ScalarTree.h - a pointwise op's expression as data ------*- C++ -*-===//
//
// The builder that records what a ScalarOps.h body computes as a tree, for
// the compiler: lib/Codegen renders it as the C++ text the targets generate
// (renderScalarTree), pad-safety reasoning evaluates it in double
// (evaluateScalarTree). Nodes mirror the text's structure: an infix operator
// renders without parentheses, paren() renders them, the renderer checks
// that the text parses back into the same tree.
//
// Standard C++ only, like ScalarOps.h.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_SCALARTREE_H
#define GRAPHC_LIB_SUPPORT_SCALARTREE_H

#include "lib/Support/ScalarOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graphc::scalar {

enum class NodeKind : uint8_t {
  Operand,  // operand `index`
  Constant, // a literal of the compute type, `value`
  Boolean,  // true / false, `value`
  Paren,    // (a)
  Cast,     // static_cast<`cast`>(a)
  Unary,    // `unary` a
  Binary,   // a `binary` b
  Select,   // a ? b : c
  Call,     // gc_`fn`(a[, b])
};

/// C++'s unary and binary operators the bodies use.
enum class UnaryOp : uint8_t { Neg, Not, BitNot };
enum class BinaryOp : uint8_t {
  // clang-format off
  Mul, Div, Rem, Add, Sub, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, BitAnd, BitXor,
  BitOr, And, Or
  // clang-format on
};
/// The targets of static_cast: the compute type, double, long long, float.
enum class CastTo : uint8_t { Compute, Double, Int64, Float };

/// The gc_<fn> helpers (GRAPHC_SCALAR_*_FUNCTIONS).
enum class Fn : uint8_t {
#define GRAPHC_SCALAR_FN_ENUM(name) name,
  GRAPHC_SCALAR_UNARY_FUNCTIONS(GRAPHC_SCALAR_FN_ENUM)
      GRAPHC_SCALAR_BINARY_FUNCTIONS(GRAPHC_SCALAR_FN_ENUM)
#undef GRAPHC_SCALAR_FN_ENUM
};

inline const char *fnName(Fn fn) {
  static const char *const names[] = {
#define GRAPHC_SCALAR_FN_NAME(name) #name,
      GRAPHC_SCALAR_UNARY_FUNCTIONS(GRAPHC_SCALAR_FN_NAME)
          GRAPHC_SCALAR_BINARY_FUNCTIONS(GRAPHC_SCALAR_FN_NAME)
#undef GRAPHC_SCALAR_FN_NAME
  };
  return names[static_cast<unsigned>(fn)];
}

struct Node {
  NodeKind kind;
  uint8_t op = 0; // UnaryOp, BinaryOp, CastTo or Fn by kind
  int args[3] = {-1, -1, -1};
  double value = 0; // Constant, Boolean; Operand: its index
};

class TreeBuilder;

/// A node of a TreeBuilder's tree; null when building failed. Test it with
/// valid(): `!v`, like every operator on it, records a node.
struct ScalarValue {
  TreeBuilder *builder = nullptr;
  int id = -1;
  bool valid() const { return builder && id >= 0; }
};

class TreeBuilder {
public:
  /// `isFloat`: whether the compute type is floating point.
  explicit TreeBuilder(bool isFloat) : floatCompute(isFloat) {}
  TreeBuilder(const TreeBuilder &) = delete;
  TreeBuilder &operator=(const TreeBuilder &) = delete;

  bool isFloat() const { return floatCompute; }

  ScalarValue operand(unsigned index) {
    return add({NodeKind::Operand, 0, {-1, -1, -1}, double(index)});
  }
  ScalarValue constant(double v) {
    return add({NodeKind::Constant, 0, {-1, -1, -1}, v});
  }
  ScalarValue boolean(bool v) {
    return add({NodeKind::Boolean, 0, {-1, -1, -1}, v ? 1.0 : 0.0});
  }
  ScalarValue paren(ScalarValue a) { return node(NodeKind::Paren, 0, {a}); }
  ScalarValue cast(ScalarValue a) { return castTo(CastTo::Compute, a); }
  ScalarValue castDouble(ScalarValue a) { return castTo(CastTo::Double, a); }
  ScalarValue castInt64(ScalarValue a) { return castTo(CastTo::Int64, a); }
  ScalarValue castFloat(ScalarValue a) { return castTo(CastTo::Float, a); }
  ScalarValue select(ScalarValue c, ScalarValue a, ScalarValue b) {
    return node(NodeKind::Select, 0, {c, a, b});
  }
  ScalarValue unary(UnaryOp op, ScalarValue a) {
    return node(NodeKind::Unary, uint8_t(op), {a});
  }
  ScalarValue binary(BinaryOp op, ScalarValue a, ScalarValue b) {
    return node(NodeKind::Binary, uint8_t(op), {a, b});
  }
  ScalarValue call(Fn fn, ScalarValue a) {
    return node(NodeKind::Call, uint8_t(fn), {a});
  }
  ScalarValue call(Fn fn, ScalarValue a, ScalarValue b) {
    return node(NodeKind::Call, uint8_t(fn), {a, b});
  }
#define GRAPHC_SCALAR_TREE_FN1(name)                                           \
  ScalarValue name(ScalarValue a) { return call(Fn::name, a); }
  GRAPHC_SCALAR_UNARY_FUNCTIONS(GRAPHC_SCALAR_TREE_FN1)
#undef GRAPHC_SCALAR_TREE_FN1
#define GRAPHC_SCALAR_TREE_FN2(name)                                           \
  ScalarValue name(ScalarValue a, ScalarValue b) {                             \
    return call(Fn::name, a, b);                                               \
  }
  GRAPHC_SCALAR_BINARY_FUNCTIONS(GRAPHC_SCALAR_TREE_FN2)
#undef GRAPHC_SCALAR_TREE_FN2

  /// Records why the op has no expression; returns a null value.
  ScalarValue fail(std::string message) {
    if (error.empty())
      error = std::move(message);
    return {};
  }
  const std::string &failure() const { return error; }
  const std::vector<Node> &nodes() const { return tree; }

private:
  ScalarValue castTo(CastTo to, ScalarValue a) {
    return node(NodeKind::Cast, uint8_t(to), {a});
  }
  ScalarValue node(NodeKind kind, uint8_t op,
                   std::initializer_list<ScalarValue> args) {
    Node n{kind, op, {-1, -1, -1}, 0};
    int i = 0;
    for (ScalarValue arg : args) {
      // A failed operand fails the expression.
      if (!arg.valid())
        return {};
      n.args[i++] = arg.id;
    }
    return add(n);
  }
  ScalarValue add(const Node &n) {
    tree.push_back(n);
    return {this, static_cast<int>(tree.size()) - 1};
  }

  bool floatCompute;
  std::vector<Node> tree;
  std::string error;
};

// The operators of the bodies record nodes.
#define GRAPHC_SCALAR_TREE_BINARY(symbol, op)                                  \
  inline ScalarValue operator symbol(ScalarValue a, ScalarValue b) {           \
    return a.builder ? a.builder->binary(BinaryOp::op, a, b) : ScalarValue();  \
  }
GRAPHC_SCALAR_TREE_BINARY(*, Mul)
GRAPHC_SCALAR_TREE_BINARY(/, Div)
GRAPHC_SCALAR_TREE_BINARY(%, Rem)
GRAPHC_SCALAR_TREE_BINARY(+, Add)
GRAPHC_SCALAR_TREE_BINARY(-, Sub)
GRAPHC_SCALAR_TREE_BINARY(<<, Shl)
GRAPHC_SCALAR_TREE_BINARY(>>, Shr)
GRAPHC_SCALAR_TREE_BINARY(<, Lt)
GRAPHC_SCALAR_TREE_BINARY(<=, Le)
GRAPHC_SCALAR_TREE_BINARY(>, Gt)
GRAPHC_SCALAR_TREE_BINARY(>=, Ge)
GRAPHC_SCALAR_TREE_BINARY(==, Eq)
GRAPHC_SCALAR_TREE_BINARY(!=, Ne)
GRAPHC_SCALAR_TREE_BINARY(&, BitAnd)
GRAPHC_SCALAR_TREE_BINARY(^, BitXor)
GRAPHC_SCALAR_TREE_BINARY(|, BitOr)
GRAPHC_SCALAR_TREE_BINARY(&&, And)
GRAPHC_SCALAR_TREE_BINARY(||, Or)
#undef GRAPHC_SCALAR_TREE_BINARY
#define GRAPHC_SCALAR_TREE_UNARY(symbol, op)                                   \
  inline ScalarValue operator symbol(ScalarValue a) {                          \
    return a.builder ? a.builder->unary(UnaryOp::op, a) : ScalarValue();       \
  }
GRAPHC_SCALAR_TREE_UNARY(-, Neg)
GRAPHC_SCALAR_TREE_UNARY(!, Not)
GRAPHC_SCALAR_TREE_UNARY(~, BitNot)
#undef GRAPHC_SCALAR_TREE_UNARY

/// The value of `root` with operand i holding operands[i], every node
/// computed in double with Eval<double>'s functions (comparisons give 0 or
/// 1). A cast to long long truncates, one to float rounds; nothing else
/// leaves double.
inline double evaluateScalarTree(const TreeBuilder &builder, ScalarValue root,
                                 const double *operands) {
  const std::vector<Node> &nodes = builder.nodes();
  std::vector<double> values(root.id + 1);
  Eval<double> e;
  for (int i = 0; i <= root.id; ++i) {
    const Node &n = nodes[i];
    auto arg = [&](int k) { return values[n.args[k]]; };
    double &v = values[i];
    switch (n.kind) {
    case NodeKind::Operand:
      v = operands[static_cast<unsigned>(n.value)];
      break;
    case NodeKind::Constant:
    case NodeKind::Boolean:
      v = n.value;
      break;
    case NodeKind::Paren:
      v = arg(0);
      break;
    case NodeKind::Cast:
      v = CastTo(n.op) == CastTo::Int64   ? double(e.castInt64(arg(0)))
          : CastTo(n.op) == CastTo::Float ? double(e.castFloat(arg(0)))
                                          : arg(0);
      break;
    case NodeKind::Unary:
      switch (UnaryOp(n.op)) {
      case UnaryOp::Neg:
        v = -arg(0);
        break;
      case UnaryOp::Not:
        v = !arg(0);
        break;
      case UnaryOp::BitNot:
        v = double(~e.castInt64(arg(0)));
        break;
      }
      break;
    case NodeKind::Binary: {
      double a = arg(0), b = arg(1);
      long long ia = e.castInt64(a), ib = e.castInt64(b);
      switch (BinaryOp(n.op)) {
      // clang-format off
      case BinaryOp::Mul: v = a * b; break;
      case BinaryOp::Div: v = a / b; break;
      case BinaryOp::Rem: v = ib ? double(ia % ib) : NAN; break;
      case BinaryOp::Add: v = a + b; break;
      case BinaryOp::Sub: v = a - b; break;
      case BinaryOp::Shl: v = double(ia << ib); break;
      case BinaryOp::Shr: v = double(ia >> ib); break;
      case BinaryOp::Lt: v = a < b; break;
      case BinaryOp::Le: v = a <= b; break;
      case BinaryOp::Gt: v = a > b; break;
      case BinaryOp::Ge: v = a >= b; break;
      case BinaryOp::Eq: v = a == b; break;
      case BinaryOp::Ne: v = a != b; break;
      case BinaryOp::BitAnd: v = double(ia & ib); break;
      case BinaryOp::BitXor: v = double(ia ^ ib); break;
      case BinaryOp::BitOr: v = double(ia | ib); break;
      case BinaryOp::And: v = a != 0 && b != 0; break;
      case BinaryOp::Or: v = a != 0 || b != 0; break;
        // clang-format on
      }
      break;
    }
    case NodeKind::Select:
      v = arg(0) != 0 ? arg(1) : arg(2);
      break;
    case NodeKind::Call:
      switch (Fn(n.op)) {
#define GRAPHC_SCALAR_EVAL_FN1(name)                                           \
  case Fn::name:                                                               \
    v = e.name(arg(0));                                                        \
    break;
        GRAPHC_SCALAR_UNARY_FUNCTIONS(GRAPHC_SCALAR_EVAL_FN1)
#undef GRAPHC_SCALAR_EVAL_FN1
      case Fn::ipow:
        v = double(e.ipow(e.castInt64(arg(0)), e.castInt64(arg(1))));
        break;
#define GRAPHC_SCALAR_EVAL_FN2(name)                                           \
  case Fn::name:                                                               \
    v = e.name(arg(0), arg(1));                                                \
    break;
        GRAPHC_SCALAR_EVAL_FN2(max)
        GRAPHC_SCALAR_EVAL_FN2(min)
        GRAPHC_SCALAR_EVAL_FN2(pow)
        GRAPHC_SCALAR_EVAL_FN2(fmod)
        GRAPHC_SCALAR_EVAL_FN2(pymod)
        GRAPHC_SCALAR_EVAL_FN2(clip_low)
        GRAPHC_SCALAR_EVAL_FN2(clip_high)
#undef GRAPHC_SCALAR_EVAL_FN2
      }
      break;
    }
  }
  return values[root.id];
}

} // namespace graphc::scalar

#endif
