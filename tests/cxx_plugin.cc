// cxx_plugin.cc - C++ code that a C host dlopen()s: it allocates with
// new[]/new and hands memory across the boundary both ways.
#include <cstring>
#include <string>
#include <vector>

extern "C" char *plugin_make(std::size_t n)
{
	char *p = new char[n];
	std::memset(p, 'p', n);
	return p;
}

extern "C" void plugin_drop(char *p)
{
	delete[] p;
}

extern "C" long plugin_work(int rounds)
{
	long total = 0;
	for (int r = 0; r < rounds; r++) {
		std::vector<std::string> v;
		for (int i = 0; i < 1000; i++)
			v.emplace_back(static_cast<std::size_t>(i % 100 + 20), 'a');
		auto *m = new std::vector<int>(5000, r);
		total += static_cast<long>(v.size()) + (*m)[4999];
		delete m;
	}
	return total;
}
