#include "roofcast/cli/cli.hpp"

int main(int argc, char** argv) { return roofcast::cli::run({argv + 1, argv + argc}); }
