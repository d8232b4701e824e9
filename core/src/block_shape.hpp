#pragma once
// The arithmetic of one Jacobian block, written out for its two widths: a
// block is 1 to 3 rows (a constraint's, Rows::kMax) of a body's 2 or 3 DOF
// (a 2D particle; a 2D rigid body or a 3D particle). Loops of run-time
// length over so few terms are not unrolled by the compiler, and the passes
// over J ran at half the speed they do written out (a joint grid's 2 × 3
// blocks).

namespace linkage {

// A row's term of a product with J, for row sums over a group's blocks
// (BlockJacobian::group_sums): of<C>(v, u) over the row's C values v and
// the body's C entries u.
struct RowDot {  // Σ_c v[c] x[c]: a row of J x
  template <int C>
  static double of(const double* v, const double* x) {
    static_assert(C == 2 || C == 3);
    if constexpr (C == 2) return v[0] * x[0] + v[1] * x[1];
    else return v[0] * x[0] + v[1] * x[1] + v[2] * x[2];
  }
};
struct RowGram {  // Σ_c v[c]² w[c]: a row's diag(J W Jᵀ)
  template <int C>
  static double of(const double* v, const double* w) {
    static_assert(C == 2 || C == 3);
    if constexpr (C == 2) return v[0] * v[0] * w[0] + v[1] * v[1] * w[1];
    else return v[0] * v[0] * w[0] + v[1] * v[1] * w[1] + v[2] * v[2] * w[2];
  }
};

// y[c] += v[r C + c] l[r] over `rows` rows of C values, in row order.
template <int C>
inline void block_transpose_add(const double* v, int rows, const double* l, double* y) {
  static_assert(C == 2 || C == 3);
  for (int r = 0; r < rows; ++r, v += C) {
    y[0] += v[0] * l[r];
    y[1] += v[1] * l[r];
    if constexpr (C == 3) y[2] += v[2] * l[r];
  }
}

}  // namespace linkage
