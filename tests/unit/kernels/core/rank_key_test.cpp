// SPEC v1.2 §7's rank key (detail/rank_math.hpp): 8 significant digits, half to even, sign
// kept, |x| < 1e-12 as 0, infinities and NaN at the ends; near ties order by id on every path
// that ranks (ranks_before, TopK), and the fast comparison agrees with the keys everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <random>
#include <vector>

#include "support/compare.hpp"
#include "wfod/detail/rank_math.hpp"
#include "wfod/ranking.hpp"

namespace wfod {
namespace {

using detail::rank_key;

// The key a decimal rounding of x to 8 significant digits should give, from its decimal
// digits as printf writes them (%.7e rounds correctly, ties to even on glibc's exact decimal
// expansion), independent of rank_key's arithmetic.
int64_t key_from_printf(double x) {
  if (std::isnan(x)) return detail::kRankKeyNaN;
  if (std::isinf(x)) return x > 0 ? detail::kRankKeyPlusInf : detail::kRankKeyMinusInf;
  if (!(std::fabs(x) >= 1e-12)) return 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.7e", std::fabs(x));  // d.ddddddde±XX
  // The 8 digits without the point, then the exponent (no std::string: GCC 12's -Wrestrict
  // misfires on substr concatenation at -O2).
  int64_t digits = buf[0] - '0';
  for (int i = 2; i < 9; ++i) digits = digits * 10 + (buf[i] - '0');
  const int e = std::atoi(buf + 10);
  const int64_t mag = static_cast<int64_t>(e + 13) * 100000000 + digits;
  return x < 0 ? -mag : mag;
}

TEST(RankKey, EightSignificantDigitsHalfToEven) {
  EXPECT_EQ(rank_key(1.0), rank_key(1.000000049));
  EXPECT_NE(rank_key(1.0), rank_key(1.00000006));
  EXPECT_EQ(rank_key(123456784.0), rank_key(123456780.0));
  // Exact halves (integers, so the tie is exact in binary too) go to the even digit.
  EXPECT_EQ(rank_key(123456785.0), rank_key(123456780.0));
  EXPECT_EQ(rank_key(123456775.0), rank_key(123456780.0));
  EXPECT_EQ(rank_key(123456795.0), rank_key(123456800.0));
  // Rounding up across a decade: 99,999,999.5 is 1.0000000e8.
  EXPECT_EQ(rank_key(999999995.0), rank_key(1e9));
  EXPECT_LT(rank_key(999999985.0), rank_key(1e9));
  // Sign kept; -0 and +0 and anything below 1e-12 in magnitude are key 0.
  EXPECT_EQ(rank_key(-2.5), -rank_key(2.5));
  EXPECT_EQ(rank_key(-0.0), 0);
  EXPECT_EQ(rank_key(9.9e-13), 0);
  EXPECT_EQ(rank_key(-9.9e-13), 0);
  EXPECT_GT(rank_key(1e-12), 0);
  EXPECT_LT(rank_key(-1e-12), 0);
  // The ends, and no overflow to an infinity for the largest doubles.
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_GT(rank_key(inf), rank_key(std::numeric_limits<double>::max()));
  EXPECT_LT(rank_key(-inf), rank_key(-std::numeric_limits<double>::max()));
  EXPECT_LT(rank_key(nan), rank_key(-inf));
}

TEST(RankKey, AgreesWithDecimalFormattingAndStaysMonotone) {
  std::mt19937_64 rng(20261206);
  std::uniform_real_distribution<double> mant(1.0, 10.0);
  std::uniform_int_distribution<int> exp10(-12, 300);
  double prev_x = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < 200000; ++i) {
    double x = mant(rng) * std::pow(10.0, exp10(rng));
    if (rng() & 1) x = -x;
    if (i % 7 == 0) {  // near a rounding boundary: a decimal with a 5 in the 9th digit
      const double q = std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 7);
      x = (std::floor(x / q) + 0.5) * q * (1 + ((rng() & 1) ? 3e-16 : -3e-16));
    }
    const int64_t want = key_from_printf(x);
    const int64_t got = rank_key(x);
    // Both round the same double's exact value: equal, near a half too, up to 1e29 (beyond,
    // the scaling by 10^-k is two roundings and only a value within rounding of a half may
    // differ by a key unit).
    if (std::fabs(x) < 1e29) {
      ASSERT_EQ(got, want) << std::setprecision(17) << x;
    }
    ASSERT_LE(std::llabs(got - want), 1) << x;
    // Monotone: a larger value never gets a smaller key.
    if (x >= prev_x) {
      ASSERT_GE(got, rank_key(prev_x)) << prev_x << " " << x;
    }
    prev_x = x;
  }
}

TEST(RankKey, NearAHalfTheExactValueDecides) {
  // The double nearest 25.8267805 is just above the half: 25.826781 (its product with 10^6
  // rounds to 25826780.5 exactly, which a plain rint would send to the even ...780).
  EXPECT_EQ(rank_key(25.8267805), key_from_printf(25.8267805));
  EXPECT_EQ(rank_key(25.8267805), rank_key(25.826781));
  // Every double next to a decimal half, both sides, many magnitudes.
  std::mt19937_64 rng(45);
  for (int i = 0; i < 100000; ++i) {
    const int e = static_cast<int>(rng() % 40) - 12;
    const double half =
        (static_cast<double>(10000000 + rng() % 90000000) + 0.5) * std::pow(10.0, e - 7);
    for (double x : {half, std::nextafter(half, 0.0), std::nextafter(half, 1e300)}) {
      ASSERT_EQ(rank_key(x), key_from_printf(x)) << std::setprecision(17) << x;
      ASSERT_EQ(rank_key(-x), key_from_printf(-x)) << std::setprecision(17) << -x;
    }
  }
}

TEST(RankKey, FastComparisonMatchesTheKeys) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const double scale = std::pow(10.0, static_cast<int>(rng() % 30) - 14);
    const double a = u(rng) * scale;
    // b: a itself moved by a tiny relative amount, or unrelated.
    const double b = (rng() & 1) ? a * (1 + u(rng) * 3e-7) : u(rng) * scale;
    const int64_t ka = rank_key(a), kb = rank_key(b);
    const int want = ka == kb ? 0 : ka > kb ? 1 : -1;
    ASSERT_EQ(detail::compare_rank_keys(a, b), want) << a << " " << b;
    ASSERT_LE(detail::rank_key_tie_floor(a), a);
    if (ka == kb) {
      ASSERT_GE(b, detail::rank_key_tie_floor(a)) << a << " " << b;
      ASSERT_LE(b, detail::rank_key_tie_ceiling(a)) << a << " " << b;
    }
  }
}

TEST(RanksBefore, NearTiesOrderByIdOnTheRankKey) {
  // The case: two calmars equal to 1e-28 relative rank by id, whichever is larger.
  const double a = 2.718281828459045, b = a * (1 + 4e-16);
  EXPECT_TRUE(ranks_before(a, 0, b, 1));
  EXPECT_TRUE(ranks_before(b, 0, a, 1));
  EXPECT_FALSE(ranks_before(b, 1, a, 0));
  // Agreeing to 8 significant digits is a tie; differing in the 8th is not.
  EXPECT_TRUE(ranks_before(1.2345678e-3, 5, 1.23456781e-3, 6));
  EXPECT_TRUE(ranks_before(1.2345679e-3, 9, 1.2345678e-3, 2));
  // Both below 1e-12 in magnitude: key 0, the id decides.
  EXPECT_TRUE(ranks_before(-5e-13, 1, 5e-13, 2));
  // A TopK keeps the lower ids among near ties, whatever the offer order.
  std::vector<Ranked> all;
  for (uint64_t id = 0; id < 50; ++id) {
    Ranked r;
    r.combo.id = id;
    r.objective = 1.5 * (1 + static_cast<double>(id) * 1e-15);  // raw order: highest id first
    all.push_back(r);
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed);
    std::shuffle(all.begin(), all.end(), rng);
    TopK top(3);
    for (const Ranked& r : all) top.offer(r);
    EXPECT_EQ(test::ids_of(top.sorted()), (std::vector<uint64_t>{0, 1, 2}));
  }
}

}  // namespace
}  // namespace wfod
