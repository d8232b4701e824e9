// The direct solver's factorization against the libraries, on the same
// systems K = J W Jᵀ: the benchmark scenes at their starting state (Google
// Benchmark, JSON out). Each system is factored and solved by
//   multifrontal     core's own (constraint-graph orders, dense fronts), with
//                    dependent rows taken out (joint_grid) as the solver does
//   eigen_simplicial Eigen's SimplicialLDLT (AMD), on K with the same rows out
//   cholmod_*        CHOLMOD's supernodal and simplicial LDLᵀ (Debian's
//                    SuiteSparse with its BLAS), the same rows out
// and timed per factorization and per solve. The multifrontal factorization
// includes its assembly from J's blocks; the libraries are given K already
// assembled (their assembly is not timed), so that the comparison favours
// them. The counters give the rows solved and the dependent rows taken out.
// Beside them, the product K z that PCG on a reused factorization makes
// each iteration, on one and two threads, and the multifrontal LDLᵀ's
// analysis of a change of topology.
//
//   solver_bench --benchmark_out=solvers.json --benchmark_out_format=json
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Eigen/CholmodSupport>
#include <Eigen/SparseCholesky>

#include "linkage/scenes/spec.hpp"
#include "solvers/multifrontal.hpp"

namespace {

using namespace linkage;
namespace scenes = linkage::scenes;

// J, W at a scene's start: rods and pins in 2D, as core's constraints give them.
struct System {
  BlockJacobian J;
  Eigen::VectorXd w, reg;
  std::vector<char> held;
};

System system_of(const scenes::SceneSpec& spec) {
  System s;
  std::vector<int> offset(spec.bodies.size(), -1), dof(spec.bodies.size(), 0);
  int cols = 0;
  for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
    if (spec.bodies[i].fixed) continue;
    offset[i] = cols;
    dof[i] = spec.bodies[i].type == scenes::BodyType::rigid ? 3 : 2;
    cols += dof[i];
  }
  s.w.resize(cols);
  for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
    if (offset[i] < 0) continue;
    s.w.segment(offset[i], 2).setConstant(1.0 / spec.bodies[i].mass);
    if (dof[i] == 3) s.w[offset[i] + 2] = 1.0 / spec.bodies[i].inertia;
  }
  int rows = 0;
  for (const scenes::JointSpec& j : spec.joints)
    if (!scenes::is_inert(spec, j)) rows += j.kind == scenes::JointKind::rod ? 1 : 2;
  s.J.reset(rows, cols);
  int row = 0;
  for (const scenes::JointSpec& j : spec.joints) {
    if (scenes::is_inert(spec, j)) continue;
    const int n = j.kind == scenes::JointKind::rod ? 1 : 2;
    s.J.begin_group(row, n);
    const Vec2 d = j.anchor_b - j.anchor_a;
    const Vec2 u = d.norm() > 0.0 ? Vec2(d / d.norm()) : Vec2(1.0, 0.0);
    for (const auto& [body, sign, anchor] : {std::tuple{j.a, -1.0, j.anchor_a}, std::tuple{j.b, 1.0, j.anchor_b}}) {
      if (body < 0 || offset[static_cast<std::size_t>(body)] < 0) continue;
      const int c = dof[static_cast<std::size_t>(body)];
      double* v = s.J.add_block(offset[static_cast<std::size_t>(body)], c);
      const Vec2 arm = anchor - spec.bodies[static_cast<std::size_t>(body)].position;
      for (int r = 0; r < n; ++r) {
        const Vec2 dir = n == 1 ? u : (r == 0 ? Vec2(1.0, 0.0) : Vec2(0.0, 1.0));
        v[r * c + 0] = sign * dir.x();
        v[r * c + 1] = sign * dir.y();
        if (c == 3) v[r * c + 2] = sign * (-arm.y() * dir.x() + arm.x() * dir.y());
      }
    }
    row += n;
  }
  s.reg = Eigen::VectorXd::Zero(rows);
  return s;
}

struct Case {
  std::string name;
  std::function<scenes::SceneSpec()> make;
};
const std::vector<Case> kCases = {
    {"chain_1000", [] { return scenes::chain(1000); }},
    {"cloth_32", [] { return scenes::cloth(32); }},
    {"cloth_100_slack", [] { return scenes::cloth_slack(100); }},
    {"joint_grid", [] { return scenes::joint_grid(); }},
};

// The multifrontal solver as the direct solver runs it: analysed, factored
// once to find dependent rows, analysed again without them.
struct Prepared {
  System s;
  MultifrontalLdlt f;
  std::vector<char> removed;
  int dependent = 0;
};

Prepared prepare(const Case& c) {
  Prepared p{system_of(c.make()), {}, {}, 0};
  const SystemView k{p.s.J, p.s.w, p.s.reg, p.s.held};
  p.f.analyse(p.s.J, {});
  p.f.factor(k);
  p.removed.assign(static_cast<std::size_t>(p.s.J.rows()), 0);
  while (!p.f.dependent_rows().empty()) {
    for (int r : p.f.dependent_rows()) p.removed[static_cast<std::size_t>(r)] = 1;
    p.dependent += static_cast<int>(p.f.dependent_rows().size());
    p.f.analyse(p.s.J, p.removed);
    p.f.factor(k);
  }
  return p;
}

void counters(benchmark::State& state, const Prepared& p) {
  state.counters["rows"] = p.s.J.rows() - p.dependent;
  state.counters["dependent_rows"] = p.dependent;
}

// range(0): 0 factor, 1 solve; range(1): threads.
void bench_multifrontal(benchmark::State& state, const Case& c) {
  Prepared p = prepare(c);
  const SystemView k{p.s.J, p.s.w, p.s.reg, p.s.held};
  const bool solve = state.range(0) == 1;
  Threads pool;
  const Parallel parallel{&pool, static_cast<int>(state.range(1))};
  p.f.factor(k, parallel);
  Eigen::VectorXd x = Eigen::VectorXd::Ones(p.s.J.rows());
  for (auto _ : state) {
    if (solve) {
      p.f.solve(x, parallel);
    } else {
      p.f.factor(k, parallel);
    }
    benchmark::DoNotOptimize(x.data());
  }
  counters(state, p);
  state.counters["factor_mflop"] = p.f.plan().factor_flops * 1e-6;
  state.counters["fronts"] = static_cast<double>(p.f.plan().supers.size());
  double stored = 0.0;  // L's entries below the diagonal that the panels keep
  for (const FrontPlan::Super& f : p.f.plan().supers) stored += f.pivots * (f.size - (f.pivots + 1) / 2.0);
  state.counters["l_nonzeros"] = stored;
}

// K z = J W Jᵀ z with the dependent rows held out: the product PCG makes
// each iteration (two passes over J), on `threads` threads.
void bench_products(benchmark::State& state, const Case& c) {
  const Prepared p = prepare(c);
  const int threads = static_cast<int>(state.range(0));
  Threads pool;
  const SystemView k{p.s.J, p.s.w, p.s.reg, p.removed, Parallel{&pool, threads}};
  const Eigen::VectorXd z = Eigen::VectorXd::Ones(p.s.J.rows());
  Eigen::VectorXd y, dof;
  for (auto _ : state) {
    k.apply(z, y, dof);
    benchmark::DoNotOptimize(y.data());
  }
  counters(state, p);
}

// A change of topology's analysis (the graph, its order, the fronts), as
// the direct solver makes it: range(0) 0 for a system it has not seen
// (orders made afresh), 1 for the same system less a constraint in the
// middle, and back, in turns (the order kept: KeptOrder).
void bench_analysis(benchmark::State& state, const Case& c) {
  const Prepared p = prepare(c);
  const bool kept = state.range(0) == 1;
  const std::size_t out = p.s.J.groups().size() / 2;
  BlockJacobian less;
  less.reset(p.s.J.rows() - p.s.J.groups()[out].rows, p.s.J.cols());
  std::vector<char> removed_less;
  for (std::size_t g = 0, row = 0; g < p.s.J.groups().size(); ++g) {
    const BlockJacobian::Group& grp = p.s.J.groups()[g];
    if (g == out) continue;
    less.begin_group(static_cast<int>(row), grp.rows);
    for (int k = grp.first_block; k < grp.first_block + grp.blocks; ++k) {
      const BlockJacobian::Block& b = p.s.J.block(k);
      std::copy_n(p.s.J.values(b), grp.rows * b.cols, less.add_block(b.col, b.cols));
    }
    for (int r = 0; r < grp.rows; ++r) removed_less.push_back(p.removed[static_cast<std::size_t>(grp.row + r)]);
    row += static_cast<std::size_t>(grp.rows);
  }
  MultifrontalLdlt f;
  f.analyse(p.s.J, p.removed);
  bool turn = false;
  for (auto _ : state) {
    if (!kept) f = MultifrontalLdlt();
    turn = kept && !turn;
    if (turn) {
      f.analyse(less, removed_less);
    } else {
      f.analyse(p.s.J, p.removed);
    }
    benchmark::DoNotOptimize(f.plan().factor_flops);
  }
  counters(state, p);
  state.counters["nodes_changed"] = f.kept_order().changed();
}

// K with the dependent rows out, as a sparse matrix (the libraries' input).
Eigen::SparseMatrix<double> reduced_k(const Prepared& p) {
  Eigen::SparseMatrix<double> full = p.s.J.gram(p.s.w);
  std::vector<int> keep, at(static_cast<std::size_t>(full.rows()), -1);
  for (int i = 0; i < full.rows(); ++i)
    if (!p.removed[static_cast<std::size_t>(i)]) at[static_cast<std::size_t>(i)] = static_cast<int>(keep.size()), keep.push_back(i);
  std::vector<Eigen::Triplet<double>> t;
  for (int col = 0; col < full.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(full, col); it; ++it)
      if (at[static_cast<std::size_t>(it.row())] >= 0 && at[static_cast<std::size_t>(it.col())] >= 0)
        t.emplace_back(at[static_cast<std::size_t>(it.row())], at[static_cast<std::size_t>(it.col())], it.value());
  Eigen::SparseMatrix<double> k(static_cast<int>(keep.size()), static_cast<int>(keep.size()));
  k.setFromTriplets(t.begin(), t.end());
  return k;
}

template <class Solver>
void bench_library(benchmark::State& state, const Case& c) {
  const Prepared p = prepare(c);
  const bool solve = state.range(0) == 1;
  Solver solver;
  const Eigen::SparseMatrix<double> k = reduced_k(p);
  solver.analyzePattern(k);
  solver.factorize(k);
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(k.rows());
  Eigen::VectorXd x;
  for (auto _ : state) {
    if (solve) {
      x = solver.solve(b);
    } else {
      solver.factorize(k);
    }
    benchmark::DoNotOptimize(x.data());
  }
  counters(state, p);
  // L's entries below the diagonal, by the library's own count (its fill).
  if constexpr (std::is_same_v<Solver, Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>) {
    state.counters["l_nonzeros"] = static_cast<double>(solver.matrixL().nestedExpression().nonZeros());
  } else {
    state.counters["l_nonzeros"] = solver.cholmod().lnz - k.rows();
  }
}

void register_all() {
  for (const Case& c : kCases) {
    for (int solve : {0, 1}) {
      const std::string what = solve ? "/solve" : "/factor";
      auto add = [&](const std::string& solver, auto fn, int threads = 1) {
        benchmark::RegisterBenchmark((c.name + "/" + solver + what).c_str(), fn)
            ->Args({solve, threads})
            ->Unit(benchmark::kMillisecond);
      };
      add("multifrontal", [c](benchmark::State& s) { bench_multifrontal(s, c); });
      add("multifrontal_2threads", [c](benchmark::State& s) { bench_multifrontal(s, c); }, 2);
      add("eigen_simplicial", [c](benchmark::State& s) { bench_library<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>(s, c); });
      add("cholmod_supernodal", [c](benchmark::State& s) { bench_library<Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>>>(s, c); });
      add("cholmod_simplicial", [c](benchmark::State& s) { bench_library<Eigen::CholmodSimplicialLDLT<Eigen::SparseMatrix<double>>>(s, c); });
    }
    for (int kept : {0, 1})
      benchmark::RegisterBenchmark((c.name + "/analysis/" + (kept ? "kept" : "fresh")).c_str(),
                                   [c](benchmark::State& s) { bench_analysis(s, c); })
          ->Arg(kept)
          ->Unit(benchmark::kMillisecond);
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark((c.name + "/products/k_z_" + std::to_string(threads) + "threads").c_str(),
                                   [c](benchmark::State& s) { bench_products(s, c); })
          ->Arg(threads)
          ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
