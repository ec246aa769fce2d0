#include <gtest/gtest.h>

#include "roofcast/tune/space.hpp"

TEST(Space, Placeholder) { EXPECT_TRUE(true); }
