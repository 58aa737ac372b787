// cxx_app.cc - a C++ target whose work is in a method of a class in a namespace,
// app::Parser::parse: UNITS fixed counts of dependent multiply-adds (no clock).
//
//     cxx_app UNITS
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace app {
struct Parser {
	uint64_t state = 1;
	__attribute__((noinline)) void parse(long units)
	{
		for (long u = 0; u < units; u++)
			for (unsigned i = 0; i < 1000000u; i++)
				state = state * 6364136223846793005ull + 1442695040888963407ull;
	}
};
} // namespace app

int main(int argc, char **argv)
{
	app::Parser p;
	std::vector<int> v;
	p.parse(argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1);
	v.push_back((int)p.state);
	return v[0] == 12345;
}
