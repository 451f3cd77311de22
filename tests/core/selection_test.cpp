#include "cuzarr/core/selection.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

std::vector<int64_t> positions(const DimensionSelection& d) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < d.count; ++k) out.push_back(d.start + k * d.step);
  return out;
}

std::vector<int64_t> select_1d(Slice slice, int64_t extent) {
  const Shape shape{extent};
  auto normalized = normalize_selection({slice}, shape);
  EXPECT_EQ(normalized.dims.size(), 1u);
  EXPECT_FALSE(normalized.dims[0].dropped);
  return positions(normalized.dims[0]);
}

// Python's definition of list(range(n))[start:stop:step], written as the language reference
// describes it: an independent oracle for the exhaustive test.
std::vector<int64_t> python_slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                  std::optional<int64_t> step, int64_t n) {
  const int64_t s = step.value_or(1);
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
  std::vector<int64_t> out;
  if (s > 0) {
    int64_t b = start ? clamp(*start < 0 ? *start + n : *start, 0, n) : 0;
    int64_t e = stop ? clamp(*stop < 0 ? *stop + n : *stop, 0, n) : n;
    for (int64_t i = b; i < e; i += s) out.push_back(i);
  } else {
    int64_t b = start ? clamp(*start < 0 ? *start + n : *start, -1, n - 1) : n - 1;
    int64_t e = stop ? clamp(*stop < 0 ? *stop + n : *stop, -1, n - 1) : -1;
    for (int64_t i = b; i > e; i += s) out.push_back(i);
  }
  return out;
}

TEST(Selection, SlicesFollowNumpy) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(select_1d({std::nullopt, std::nullopt, -1}, 10), (V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(select_1d({8, 2, -2}, 10), (V{8, 6, 4}));
  EXPECT_EQ(select_1d({-3, std::nullopt, std::nullopt}, 10), (V{7, 8, 9}));
  EXPECT_EQ(select_1d({std::nullopt, -12, -1}, 10), (V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(select_1d({20, std::nullopt, -3}, 10), (V{9, 6, 3, 0}));
  EXPECT_EQ(select_1d({2, 8, 3}, 10), (V{2, 5}));
  EXPECT_EQ(select_1d({-1, -11, -4}, 10), (V{9, 5, 1}));
  EXPECT_EQ(select_1d({5, 5, std::nullopt}, 10), V{});
  EXPECT_EQ(select_1d({0, std::nullopt, -1}, 10), V{0});
  EXPECT_EQ(select_1d({std::nullopt, std::nullopt, std::nullopt}, 0), V{});
}

// Steps near the int64 limits select what numpy selects (no overflow in the count).
TEST(Selection, HugeStepsSelectOneElement) {
  using V = std::vector<int64_t>;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (int64_t step : {kMax, kMax - 1, kMax - 63, int64_t{1} << 62}) {
    EXPECT_EQ(select_1d({std::nullopt, std::nullopt, step}, 64), V{0}) << step;
    EXPECT_EQ(select_1d({5, std::nullopt, step}, 64), V{5}) << step;
    EXPECT_EQ(select_1d({kMin, kMax, step}, 64), V{0}) << step;
  }
  for (int64_t step : {kMin, kMin + 1, -kMax + 63}) {
    EXPECT_EQ(select_1d({std::nullopt, std::nullopt, step}, 64), V{63}) << step;
    EXPECT_EQ(select_1d({kMax, kMin, step}, 64), V{63}) << step;
    EXPECT_EQ(select_1d({std::nullopt, std::nullopt, step}, 0), V{}) << step;
  }
}

TEST(Selection, SlicesMatchPythonExhaustively) {
  std::vector<std::optional<int64_t>> bounds{std::nullopt};
  for (int64_t v = -9; v <= 9; ++v) bounds.push_back(v);
  const std::vector<std::optional<int64_t>> steps{std::nullopt, -4, -3, -2, -1, 1, 2, 3, 5};
  for (int64_t n = 0; n <= 7; ++n) {
    for (auto start : bounds) {
      for (auto stop : bounds) {
        for (auto step : steps) {
          const auto got = select_1d({start, stop, step}, n);
          ASSERT_EQ(got, python_slice(start, stop, step, n))
              << "n=" << n << " start=" << start.value_or(999) << " stop=" << stop.value_or(999)
              << " step=" << step.value_or(999);
          for (int64_t p : got) ASSERT_TRUE(p >= 0 && p < n);
        }
      }
    }
  }
}

TEST(Selection, IntegersDropDimensionsAndAcceptNegativeIndices) {
  const Shape shape{4, 5};
  auto sel = normalize_selection({int64_t{-1}, int64_t{2}}, shape);
  ASSERT_EQ(sel.dims.size(), 2u);
  EXPECT_EQ(sel.dims[0].start, 3);
  EXPECT_TRUE(sel.dims[0].dropped);
  EXPECT_EQ(sel.dims[0].count, 1);
  EXPECT_EQ(sel.dims[1].start, 2);
  EXPECT_TRUE(sel.result_shape().empty());
  EXPECT_EQ(sel.full_result_shape(), (Shape{1, 1}));
  EXPECT_EQ(normalize_selection({int64_t{-4}}, shape).dims[0].start, 0);
}

TEST(Selection, OutOfBoundsIntegersThrowNamingTheIndex) {
  const Shape shape{4, 5};
  for (int64_t bad : {int64_t{4}, int64_t{-5}, int64_t{100}}) {
    try {
      normalize_selection({bad}, shape);
      ADD_FAILURE() << bad;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(normalize_selection({int64_t{0}}, Shape{0}), InvalidArgumentError);
}

TEST(Selection, MissingTrailingItemsSelectEverything) {
  const Shape shape{4, 5, 6};
  auto sel = normalize_selection({int64_t{1}}, shape);
  EXPECT_EQ(sel.result_shape(), (Shape{5, 6}));
  EXPECT_EQ(sel.full_result_shape(), (Shape{1, 5, 6}));
  EXPECT_EQ(full_selection(shape).result_shape(), shape);
  EXPECT_TRUE(full_selection(Shape{}).dims.empty());
}

TEST(Selection, EllipsisExpandsToTheMissingDimensions) {
  const Shape shape{2, 3, 4, 5};
  auto sel =
      normalize_selection({int64_t{1}, Ellipsis{}, Slice{std::nullopt, std::nullopt, -2}}, shape);
  ASSERT_EQ(sel.dims.size(), 4u);
  EXPECT_TRUE(sel.dims[0].dropped);
  EXPECT_EQ(sel.dims[1].count, 3);
  EXPECT_EQ(sel.dims[2].count, 4);
  EXPECT_EQ(positions(sel.dims[3]), (std::vector<int64_t>{4, 2, 0}));
  EXPECT_EQ(sel.result_shape(), (Shape{3, 4, 3}));

  auto leading = normalize_selection({Ellipsis{}, int64_t{-1}}, shape);
  EXPECT_EQ(leading.result_shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(leading.dims[3].start, 4);
  // An ellipsis may stand for no dimension at all.
  auto none =
      normalize_selection({int64_t{0}, int64_t{0}, Ellipsis{}, int64_t{0}, int64_t{0}}, shape);
  EXPECT_TRUE(none.result_shape().empty());
  EXPECT_TRUE(normalize_selection({Ellipsis{}}, Shape{}).dims.empty());
}

TEST(Selection, MalformedSelectionsThrow) {
  const Shape shape{4, 5};
  EXPECT_THROW(normalize_selection({Ellipsis{}, Ellipsis{}}, shape), InvalidArgumentError);
  EXPECT_THROW(normalize_selection({int64_t{0}, int64_t{0}, int64_t{0}}, shape),
               InvalidArgumentError);
  EXPECT_THROW(normalize_selection({Slice{}, Slice{}, Ellipsis{}, Slice{}}, shape),
               InvalidArgumentError);
  EXPECT_THROW(normalize_selection({Slice{0, 4, 0}}, shape), InvalidArgumentError);
}

TEST(Selection, ParseSelection) {
  const Selection sel = parse_selection("0:10, :, 5, ..., ::-2, -3, 1:, :-1, 1:2:3");
  ASSERT_EQ(sel.size(), 9u);
  auto slice = [&](size_t i) { return std::get<Slice>(sel[i]); };
  EXPECT_EQ(slice(0).start, 0);
  EXPECT_EQ(slice(0).stop, 10);
  EXPECT_FALSE(slice(0).step);
  EXPECT_FALSE(slice(1).start || slice(1).stop || slice(1).step);
  EXPECT_EQ(std::get<int64_t>(sel[2]), 5);
  EXPECT_TRUE(std::holds_alternative<Ellipsis>(sel[3]));
  EXPECT_FALSE(slice(4).start || slice(4).stop);
  EXPECT_EQ(slice(4).step, -2);
  EXPECT_EQ(std::get<int64_t>(sel[5]), -3);
  EXPECT_EQ(slice(6).start, 1);
  EXPECT_FALSE(slice(6).stop);
  EXPECT_EQ(slice(7).stop, -1);
  EXPECT_EQ(slice(8).step, 3);
  EXPECT_TRUE(parse_selection("").empty());
  EXPECT_TRUE(parse_selection("   ").empty());
  const Selection both = parse_selection("::");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_FALSE(std::get<Slice>(both[0]).step);
}

TEST(Selection, ParseSelectionRejectsGarbageNamingTheText) {
  for (const char* text : {"a", "1,,2", "1:2:3:4", "1.5", "0x10", "1 2", ","}) {
    SCOPED_TRACE(text);
    try {
      parse_selection(text);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

TEST(Selection, ParsedSelectionsNormalize) {
  auto sel = normalize_selection(parse_selection("..., ::-1"), Shape{2, 3});
  EXPECT_EQ(sel.result_shape(), (Shape{2, 3}));
  EXPECT_EQ(positions(sel.dims[1]), (std::vector<int64_t>{2, 1, 0}));
}

}  // namespace
}  // namespace cuzarr
